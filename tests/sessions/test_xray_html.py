"""The X-ray HTML page renders its plots in a real headless browser, offline, without console errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cairn.sessions.prices import load_prices
from cairn.sessions.usage import load_transcripts
from cairn.sessions.xray import analyze
from cairn.sessions.xray_html import render_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"


def test_page_is_self_contained():
    page = render_html(analyze(load_transcripts([FIXTURES]), load_prices({})))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "the page must not load anything"
    assert page.count('class="plot"') >= 3 and 'class="compaction"' in page


def test_page_renders_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    page = tmp_path / "xray.html"
    page.write_text(render_html(analyze(load_transcripts([FIXTURES]), load_prices({}))), encoding="utf-8")
    res = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    rendered = re.search(r'<body[^>]*data-rendered="(\d+)"', dom)
    plots = dom.count('class="plot"')
    # the inline script ran and counted every plot: 1 cost-by-day, 1 size share, 5 session curves
    assert rendered and int(rendered.group(1)) == plots == 7
    assert dom.count("<polyline") == 5 and dom.count('class="compaction"') == 2 and "<rect" in dom
    assert dom.count('class="expiry"') == 2
    console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
    assert console == [], console


def _chromium(browser: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )


TEXT_REPORT_TABLES = (
    "Cost by kind",
    "Sessions",
    "Cost by session size",
    "By agent",
    "By project",
    "By model",
    "By day",
    "Tool output entering the context",
    "Cache expiries mid-session",
    "Compaction simulator",
)


def test_page_has_every_text_report_table_and_no_title_overflows_at_two_widths(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    codex = FIXTURES.parent / "codex"
    report = analyze(load_transcripts([FIXTURES, codex]), load_prices({}))
    page = tmp_path / "xray.html"
    page.write_text(render_html(report), encoding="utf-8")
    html = page.read_text()
    for title in TEXT_REPORT_TABLES:
        assert f"<h2>{title}" in html or f">{title}<" in html, title
    assert "<td>codex</td>" in html and "<td>claude-code</td>" in html  # the by-agent rows
    for width in (1280, 390):  # a desktop window and a phone
        shot = tmp_path / f"xray-{width}.png"
        res = _chromium(browser, tmp_path, f"--window-size={width},2400", f"--screenshot={shot}", page.as_uri())
        assert res.returncode == 0 and shot.stat().st_size > 10_000, res.stderr[-2000:]
        res = _chromium(browser, tmp_path, f"--window-size={width},2400", "--dump-dom", page.as_uri())
        assert res.returncode == 0, res.stderr[-2000:]
        overflow = re.search(r'<body[^>]*data-overflow="(\d+)"', res.stdout)
        assert overflow and overflow.group(1) == "0", f"{width}px: titles overflow their box"
        console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
        assert console == [], console
