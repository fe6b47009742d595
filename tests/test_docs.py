"""The README is a short front door and the docs behind it hold together: its length, its two
commands, every link and anchor in the README and ``docs/``, the glossary's terms, and no
machine paths."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from gpusched.paths import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
MAX_README_LINES = 300
COMMANDS = ("pip install -r requirements.txt && streamlit run app/Home.py",
            "pip install -r requirements-dev.txt && pytest")
REFERENCE_PAGES = ("model", "policies", "metrics", "scenarios", "agent", "traces", "sweeps", "performance")
GLOSSARY_TERMS = ("stall", "misroute", "head job", "queue window", "bounded slowdown", "JCT", "speed loss",
                  "p99", "seed", "offered load", "goodput")

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """The text with code blocks and inline code removed (their brackets are not links)."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def heading_slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, formatting and punctuation dropped,
    spaces turned into hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^#{1,6} (.+)$", line)
        if not match:
            continue
        slug = heading_slug(match.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(path: Path) -> list[str]:
    return LINK.findall(_prose(path.read_text(encoding="utf-8")))


def test_the_slug_rules_match_githubs():
    assert heading_slug("Deciding with rollouts of itself (`ppo_rollout`)") == \
        "deciding-with-rollouts-of-itself-ppo_rollout"
    assert heading_slug("Time to result (JCT)") == "time-to-result-jct"
    assert heading_slug("Training the FIFO agent, and every knob of a run") == \
        "training-the-fifo-agent-and-every-knob-of-a-run"
    assert heading_slug("Trace-driven scenarios (real jobs)") == "trace-driven-scenarios-real-jobs"


def test_the_readme_is_a_short_front_door_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"
    for command in COMMANDS:
        assert command in lines, f"the README must hold this command as a line of its own: {command}"
    assert "docs/images/dashboard.png" in "\n".join(links(README))
    for page in REFERENCE_PAGES:
        assert f"docs/{page}.md" in links(README), page


def test_every_reference_page_exists_and_the_index_lists_it():
    index = links(DOCS / "README.md")
    for page in REFERENCE_PAGES:
        assert (DOCS / f"{page}.md").is_file(), page
        assert f"{page}.md" in index, page


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_every_link_resolves(page):
    found = links(page)
    assert found or page.parent.name == "results", "a page with no link at all is cut off from the docs"
    for target in found:
        parsed = urlparse(target)
        if parsed.scheme:
            assert parsed.scheme in ("http", "https") and parsed.netloc and " " not in target, target
            continue
        file = (page.parent / parsed.path).resolve() if parsed.path else page
        assert file.exists(), f"{page.name}: {target} names a missing file"
        assert REPO_ROOT in file.parents or file == REPO_ROOT, f"{page.name}: {target} leaves the repository"
        if parsed.fragment:
            assert file.suffix == ".md", target
            assert parsed.fragment in anchors(file), f"{page.name}: {target} names a missing heading"


def test_every_results_page_is_linked_from_the_docs():
    linked = {(p.parent / urlparse(t).path).resolve()
              for p in PAGES for t in links(p) if not urlparse(t).scheme}
    for page in sorted((DOCS / "results").glob("*.md")):
        assert page.resolve() in linked, page.name


def _glossary_headings() -> list[str]:
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    glossary = text[text.index("## Glossary"):]
    return [h.lower() for h in re.findall(r"^### (.+)$", glossary, flags=re.MULTILINE)]


def test_the_glossary_covers_every_term_a_stakeholder_meets():
    headings = _glossary_headings()
    for term in GLOSSARY_TERMS:
        assert any(term.lower() in h for h in headings), term


def test_every_term_of_the_app_glossary_has_its_entry_in_the_docs():
    """The tooltips' one-liners (``gpusched.words.glossary``) and the docs' glossary name the same
    terms, so Home's link to the docs never lands on a page that lacks the word."""
    from gpusched.words.glossary import GLOSSARY

    headings = _glossary_headings()
    for term in GLOSSARY:
        assert term.lower() in headings, term


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_no_page_names_a_machine_path(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(?<![\w.])/(?:work|tmp|home|root|Users)/", text), page.name
