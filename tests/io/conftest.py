import pytest

from .export_checks import Exports


@pytest.fixture(scope="session")
def exports(tmp_path_factory) -> Exports:
    """Every export the export tests read, written once per session (tests/io/export_checks.py)."""
    return Exports(tmp_path_factory.mktemp("exports"))
