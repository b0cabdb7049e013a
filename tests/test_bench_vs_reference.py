"""scripts/bench_vs_reference.py covers every mode (issue 30: "every mode ≤ 0.5× the reference library's")."""

from __future__ import annotations

import sys

import pytest

from graphrag_ui.retrieval.registry import get_mode, mode_names
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import bench_vs_reference as bvr  # noqa: E402


def labels() -> list[str]:
    """Each registered mode, and ``mode@version`` for each release after its first (the bench's names)."""
    out = []
    for mode in mode_names():
        versions = get_mode(mode).versions
        out += [mode] + [f"{mode}@{v}" for v in versions[1:]]
    return out


def test_every_mode_and_release_is_measured_or_said_why_not():
    said = set(bvr.NOT_BENCHED)
    missing = [x for x in labels() if x not in bvr.LIBS and x not in said and x.partition("@")[0] not in said]
    assert not missing, f"add them to bench_vs_reference.LIBS (or NOT_BENCHED, with the reason): {missing}"
    assert not said & set(bvr.LIBS)
    assert set(bvr.LIBS) <= set(labels())


@pytest.mark.parametrize("mode", sorted(bvr.LIBS))
def test_our_side_takes_the_cases_the_reference_gets(mode):
    """What ``ours_main`` gives ``run_query`` for a mode (its release's parameters) is accepted by that release."""
    base, version = bvr.split(mode)
    assert bvr.IMPORT_KIND[bvr.LIBS[mode]] and bvr.PIP[bvr.LIBS[mode]]
    spec = get_mode(base).for_version(version) if version else get_mode(base)
    for case in bvr.cases_for(mode, [("what is known about A and its partners", ["partners"], ["A"])]):
        spec.resolve({**case["params"], **case.get("instance", {})})
