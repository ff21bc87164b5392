"""hypothesis for the property-based tests (test_cpu_properties.py, test_gpu_properties.py).

hypothesis is imported from the Python path, else from the folder that
scripts/vendor_hypothesis.sh fills with Debian's pure-Python hypothesis
(FATTN_PYDEPS, default build-pydeps/ at the repository root): the GPU machine has
no hypothesis, so that folder is carried there (docs/GPU-TESTING.md). Without
either, the property tests skip.

FATTN_PROPERTY_EXAMPLES=N runs N examples per property instead of each test's
modest default. The examples are the same on every run (derandomized: CI gives
one answer per commit); FATTN_PROPERTY_RANDOM=1 draws fresh ones each run, and a
failure then prints the `@reproduce_failure` line that replays it.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def import_hypothesis():
    """The hypothesis module, or a skip of the calling test module."""
    try:
        import hypothesis
    except ImportError:
        pydeps = Path(os.environ.get("FATTN_PYDEPS", REPO / "build-pydeps"))
        if (pydeps / "hypothesis").is_dir() and str(pydeps) not in sys.path:
            sys.path.append(str(pydeps))
        try:
            import hypothesis
        except ImportError:
            pytest.skip("hypothesis is not installed (python3-hypothesis, or "
                        "scripts/vendor_hypothesis.sh for a machine without it)",
                        allow_module_level=True)
    # hypothesis caches unicode tables in ./.hypothesis: not in the checkout.
    try:
        from hypothesis.configuration import set_hypothesis_home_dir
        set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "fattn-hypothesis"))
    except ImportError:
        pass
    return hypothesis


def property_settings(examples: int):
    """hypothesis settings: `examples` examples (FATTN_PROPERTY_EXAMPLES overrides),
    no deadline (the first call of a kind loads modules), no example database
    (nothing written into the checkout)."""
    hypothesis = import_hypothesis()
    from hypothesis import HealthCheck
    return hypothesis.settings(
        max_examples=int(os.environ.get("FATTN_PROPERTY_EXAMPLES", examples)),
        deadline=None, database=None, print_blob=True,
        derandomize=os.environ.get("FATTN_PROPERTY_RANDOM") != "1",
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture])
