"""Pin OpenBLAS to one CPU kernel so vectors do not depend on which x86 machine made them.

numpy's OpenBLAS picks its GEMM kernel by CPU at load time (Haswell on AVX2 machines, SkylakeX on
AVX-512 ones), and the kernels round the last bits of a float32 product differently: use-m3 vectors
built on one machine were not bit-identical to a rebuild on the other (the samples' replay tests
failed on an AVX-512 EPYC). Every x86 CPU that has AVX-512 also has AVX2 and FMA, so the Haswell kernel
runs everywhere the faster ones do; it is chosen here, before numpy is imported, unless the user has
set ``OPENBLAS_CORETYPE`` or the CPU lacks AVX2/FMA (forcing it there would stop on an illegal
instruction). Embed workers are told the kernel their caller runs (``loaded_kernel``), so a whole
build uses one.
"""

from __future__ import annotations

import functools
import os
import platform
import sys

KERNEL = "Haswell"  # the AVX2+FMA kernel: the common ground of every CPU since 2013


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def pin_kernel() -> str | None:
    """Set ``OPENBLAS_CORETYPE`` when it can still take effect; the kernel chosen, or None."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return os.environ["OPENBLAS_CORETYPE"]
    if "numpy" in sys.modules or platform.machine().lower() not in ("x86_64", "amd64"):
        return None  # OpenBLAS already loaded with its own choice, or not an x86 CPU
    if not {"avx2", "fma"} <= _cpu_flags():
        return None
    os.environ["OPENBLAS_CORETYPE"] = KERNEL
    return KERNEL


@functools.lru_cache(maxsize=1)
def loaded_kernel() -> str | None:
    """The kernel this process's OpenBLAS runs (e.g. "Haswell", "SkylakeX"), or None when unknown.

    An embed worker must run its caller's kernel, and the caller's may not be the pinned one (numpy
    loaded before ``graphrag_ui`` keeps its own choice), so the worker is told it rather than left to
    choose from the environment."""
    from threadpoolctl import threadpool_info

    return next((i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"), None)


pin_kernel()
