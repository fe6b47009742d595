"""Agent page: lists models (or says there are none) and explains why there is no upload."""

from __future__ import annotations

from apptest_support import assert_clean, open_page


def test_agent_page_explains_no_upload():
    at = open_page("pages/agent.py")
    assert_clean(at)
    assert at.title[0].value == "Agent"
    assert any("no model upload" in i.value for i in at.info)
    assert not at.file_uploader
