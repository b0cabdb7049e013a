"""One OpenBLAS kernel on every x86 machine, so vectors do not depend on which one built them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from graphrag_ui.base import _blas

PROBE = (
    "import graphrag_ui, json, numpy, os, threadpoolctl; "
    "print(json.dumps([os.environ.get('OPENBLAS_CORETYPE'), "
    "[i['architecture'] for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas']]))"
)


def _probe(**env: str) -> list:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"} | env
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=clean, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not {"avx2", "fma"} <= _blas._cpu_flags(), reason="no AVX2/FMA: OpenBLAS keeps its own kernel")
def test_importing_the_package_pins_the_haswell_kernel():
    assert _probe() == ["Haswell", ["Haswell"]]


@pytest.mark.skipif("avx" not in _blas._cpu_flags(), reason="no AVX: the Sandybridge kernel cannot run")
def test_a_kernel_the_user_chose_is_kept():
    assert _probe(OPENBLAS_CORETYPE="Sandybridge") == ["Sandybridge", ["Sandybridge"]]


def test_too_late_once_numpy_is_loaded(monkeypatch):
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    import numpy  # noqa: F401  (OpenBLAS is loaded from here on)

    assert _blas.pin_kernel() is None
    assert "OPENBLAS_CORETYPE" not in os.environ
