"""The top-level command line advertises only commands that exist (issue 25: no "not available" stubs)."""

from __future__ import annotations

import importlib

import pytest

from graphrag_ui import cli


@pytest.mark.parametrize(("name", "module_name"), [(n, m) for n, (m, _) in cli.COMMANDS.items()])
def test_every_advertised_command_has_its_module(name, module_name):
    module = importlib.import_module(module_name)
    assert callable(module.add_arguments) and callable(module.run), name


def test_help_lists_exactly_the_commands(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out
    assert "bench" not in out and "bench" not in (cli.__doc__ or "")


def test_an_unknown_command_is_refused_by_name(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["bench"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bench'" in err and "Traceback" not in err
