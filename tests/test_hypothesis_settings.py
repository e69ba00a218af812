"""No wall-clock deadlines in property tests: a loaded machine is slow, not wrong."""

import pathlib
import re

from hypothesis import settings

TESTS = pathlib.Path(__file__).resolve().parent


def test_the_loaded_profile_has_no_deadline():
    assert settings.default.deadline is None


def test_no_test_sets_a_deadline():
    pattern = re.compile(r"settings\([^)]*\bdeadline\s*=\s*(?!None\b)")  # also over several lines
    found = [str(path.relative_to(TESTS)) for path in sorted(TESTS.rglob("*.py")) if pattern.search(path.read_text())]
    assert not found, f"hypothesis deadlines (use deadline=None): {found}"
