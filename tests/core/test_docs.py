"""The docs cannot drift from the code silently: every TOML recipe shown in README.md and docs/*.md parses
as a recipe, and every link and picture they point at exists (files, and headings for #anchors)."""

import pathlib
import re

import pytest

from worldseed.core import recipe

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page):
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", page.read_text(encoding="utf-8"), re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name if p.parent.name == "docs" else "README")
def test_every_recipe_shown_parses(page):
    blocks = re.findall(r"```toml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    for k, text in enumerate(blocks):
        recipe.loads(text, source=f"{page.name} block {k + 1}")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name if p.parent.name == "docs" else "README")
def test_every_link_and_picture_exists(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: {target} does not exist"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: no heading #{anchor} in {dest.name}"
