"""jitable.fresh_cache: a kernel's cached machine code goes when a helper compiled into it
changes (numba's own cache check looks only at the kernel file), and stays otherwise."""
from __future__ import annotations

from types import SimpleNamespace

from rigedit.core.jitable import fresh_cache


def _kernel(tmp_path):
    kernel = tmp_path / "some_kernel.py"
    kernel.write_text("# a kernel\n")
    helper = tmp_path / "helpers.py"
    helper.write_text("def f(x):\n    return x\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    return kernel, helper, cache


def _cached(cache, stem="some_kernel"):
    files = [cache / f"{stem}.solve-10.py311.nbi", cache / f"{stem}.solve-10.py311.1.nbc"]
    for f in files:
        f.write_bytes(b"machine code")
    return files


def test_cache_built_with_the_same_helpers_is_kept(tmp_path):
    kernel, helper, cache = _kernel(tmp_path)
    module = SimpleNamespace(__file__=str(helper))
    fresh_cache(str(kernel), module)  # first sight: records the helpers
    files = _cached(cache)
    fresh_cache(str(kernel), module)
    assert all(f.exists() for f in files)


def test_a_changed_helper_drops_the_kernels_cache_and_only_its(tmp_path):
    kernel, helper, cache = _kernel(tmp_path)
    module = SimpleNamespace(__file__=str(helper))
    fresh_cache(str(kernel), module)
    files = _cached(cache)
    other = _cached(cache, stem="other_kernel")
    helper.write_text("def f(x):\n    return x + 1\n")
    fresh_cache(str(kernel), module)
    assert not any(f.exists() for f in files)
    assert all(f.exists() for f in other)
    # and the new helpers are recorded: a cache built now is kept
    files = _cached(cache)
    fresh_cache(str(kernel), module)
    assert all(f.exists() for f in files)


def test_a_module_compiled_only_into_other_kernels_says_compiling_once(tmp_path, caplog):
    """Its functions never get cache files of their own (they are compiled into the kernels
    that call them): the first sight says it compiles, and no later process says so again."""
    kernel, helper, _ = _kernel(tmp_path)
    module = SimpleNamespace(__file__=str(helper))
    with caplog.at_level("WARNING", logger="rigedit"):
        fresh_cache(str(kernel), module)
        first = len(caplog.records)
        fresh_cache(str(kernel), module)
    assert first == 1 and len(caplog.records) == 1, [r.getMessage() for r in caplog.records]
