"""The one page list and the policy menu's order: every page file exists and is named once, the
navigation is built from the list, and the trained agents come among a menu's first entries."""

from __future__ import annotations

from gpusched.dashboard.pages import PAGES, page
from gpusched.dashboard.policies import agents_early
from gpusched.paths import REPO_ROOT


def test_every_page_of_the_list_exists_once_and_home_comes_first():
    assert PAGES[0].name == "home" and PAGES[0].url_path == ""
    assert len({p.name for p in PAGES}) == len({p.url_path for p in PAGES}) == len(PAGES)
    for p in PAGES:
        assert (REPO_ROOT / "app" / p.file).is_file(), p.file
        assert p.blurb and p.icon.startswith(":material/")
    assert page("replay").file == "views/replay.py"
    entry = (REPO_ROOT / "app" / "Home.py").read_text(encoding="utf-8")
    assert "for p in PAGE_SPECS" in entry and "st.Page(\"views/" not in entry  # built from the list


def test_agents_come_right_after_the_first_two_entries():
    menu = ["least_loaded", "first_fit", "best_fit", "random", "sjf+first_fit", "ppo", "ppo_rollout",
            "ppo:models/mine.zip"]
    assert agents_early(menu) == ["least_loaded", "first_fit", "ppo", "ppo_rollout", "ppo:models/mine.zip",
                                  "best_fit", "random", "sjf+first_fit"]
    assert agents_early(["first_fit", "best_fit"]) == ["first_fit", "best_fit"]
