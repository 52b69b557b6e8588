"""The built site in a real headless Chromium (Debian's, driven by Playwright): the
diagnose page against the CLI, large and bad inputs, no request leaves the site, search
ranks the right record first, comparison filters live in the URL, and screenshots."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.explain import cause_texts
from generator.diagnosis.logread import Source
from generator.records.pipeline import load_catalog
from generator.signatures.facts import fact_signatures
from generator.signatures.match import Matcher

from .realworld import load_cases
from .search_cases import FIRST_EXAMPLE_MISSES, HEADLINE_QUERIES, SHORT_QUERIES, SHORT_QUERY_MISSES
from .serving import ARGS, CHROMIUM, build_site, require_chromium, serve

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CORE_JS = ROOT / "overrides" / "assets" / "javascripts" / "failpedia-core.js"
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)


def cli_top(text: str) -> str | None:
    report = diagnose([Source("pasted log", io.BytesIO(text.encode()))], MATCHER, CATALOG)
    return report.findings[0].entry.id if report.findings else None


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_chromium()
    return build_site(tmp_path_factory.mktemp("browser-site"))


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(site_url: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield instance
        instance.close()


class Watched:
    """A page that records requests, console errors and dialogs."""

    def __init__(self, browser: object, origin: str) -> None:
        self.page = browser.new_page()  # type: ignore[attr-defined]
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.origin = origin

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(self.origin)]


def run_diagnosis(page: object) -> list[str]:
    page.click("#diagnose-run")  # type: ignore[attr-defined]
    page.wait_for_selector("#findings[data-state=done]", state="attached", timeout=60_000)  # type: ignore[attr-defined]
    return page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#findings [data-finding-id]", "els => els.map(e => e.getAttribute('data-finding-id'))"
    )


def reset(page: object) -> None:
    page.evaluate("document.getElementById('findings').setAttribute('data-state', 'idle')")  # type: ignore[attr-defined]


def test_pasted_realworld_excerpts_rank_like_the_cli(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "diagnose/")
    disagreements = []
    for case in load_cases("failures") + load_cases("benign"):
        reset(page)
        page.fill("#log-input", case.log)
        ids = run_diagnosis(page)
        if (ids[0] if ids else None) != cli_top(case.log):
            disagreements.append((case.name, ids[:2], cli_top(case.log)))
    assert disagreements == []
    assert watched.foreign_requests() == []
    assert watched.errors == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "diagnosis.png"), full_page=True)


def test_multi_megabyte_file_and_bad_inputs(browser: object, site_url: str, tmp_path: Path) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "diagnose/")
    big = tmp_path / "rank3.log"
    healthy = "".join(f"[rank3]: step {i} | loss {2 + (i % 7) / 10:.3f} | lr 3.0e-04\n" for i in range(120_000))
    oom = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    big.write_text(healthy + oom, encoding="utf-8")
    assert big.stat().st_size > 4_000_000
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF" + b"\x00" * 9000)
    page.set_input_files("#log-files", [str(big), str(binary)])
    ids = run_diagnosis(page)
    assert ids[0] == "cuda-out-of-memory"
    assert "core.bin: binary file" in page.inner_text("#findings")
    page.set_input_files("#log-files", [])
    reset(page)
    page.fill("#log-input", "")
    assert run_diagnosis(page) == []
    assert "Paste a log or choose log files first." in page.inner_text("#findings")
    reset(page)
    page.fill("#log-input", "x" * 3_000_000 + " CUDA out of memory. Tried to allocate 1.00 GiB")
    ids = run_diagnosis(page)
    assert "longer than" in page.inner_text("#findings")
    assert watched.errors == [] and watched.foreign_requests() == []


def search_top(page: object, query: str) -> str:
    page.fill("input.md-search__input", "")  # type: ignore[attr-defined]
    page.wait_for_selector(".md-search-result__item", state="detached", timeout=10_000)  # type: ignore[attr-defined]
    page.fill("input.md-search__input", query)  # type: ignore[attr-defined]
    page.press("input.md-search__input", "End")  # type: ignore[attr-defined]
    page.wait_for_selector(".md-search-result__item a", timeout=10_000)  # type: ignore[attr-defined]
    href: str = page.eval_on_selector(".md-search-result__item a", "a => a.getAttribute('href')")  # type: ignore[attr-defined]
    return href


def test_search_finds_the_record_for_short_queries(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url)
    page.click("label.md-search__icon, .md-search__input")
    misses = [query for query, record in SHORT_QUERIES if f"entries/{record}/" not in search_top(page, query)]
    assert sorted(misses) == SHORT_QUERY_MISSES
    assert len(SHORT_QUERIES) >= 40
    assert watched.errors == []


def test_search_ranks_the_record_first_for_its_first_example(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url)
    page.click("label.md-search__icon, .md-search__input")
    cases = [(entry.id, entry.signatures[0].match[0]) for entry in CATALOG.entries] + HEADLINE_QUERIES
    misses = []
    for record, query in cases:
        href = search_top(page, query)
        if f"entries/{record}/" not in href:
            misses.append(record)
    # Known misses, held exactly (the site-search issue is open): a record that stops ranking
    # first names itself, and one that starts ranking first must leave this list.
    assert sorted(misses) == sorted(FIRST_EXAMPLE_MISSES)
    assert watched.errors == []


def test_comparison_filter_lives_in_the_url(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "compare/nccl/")
    page.fill(".fp-filter", "ncclRemoteError")
    visible = page.eval_on_selector_all(
        "table.fp-compare tbody tr:not(.fp-section)", "rs => rs.filter(r => !r.hidden).map(r => r.textContent)"
    )
    assert visible and all("ncclRemoteError" in text for text in visible)
    assert "filter=ncclRemoteError" in page.url
    page.goto(page.url)
    again = page.eval_on_selector_all(
        "table.fp-compare tbody tr:not(.fp-section)", "rs => rs.filter(r => !r.hidden).length"
    )
    assert again == len(visible)
    page.click("table.fp-compare th >> nth=0")
    assert "sort=0" in page.url
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare-nccl.png"), full_page=True)
    assert watched.errors == [] and watched.foreign_requests() == []


def test_entry_box_and_screenshots(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)
    page.goto(site_url + "entries/cuda-out-of-memory/")
    page.click(".fp-check summary")
    page.fill(".fp-check textarea", "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB")
    page.click(".fp-check button")
    page.wait_for_selector(".fp-check .fp-yes")
    page.screenshot(path=str(ARTIFACTS / "entry.png"), full_page=True)
    page.fill(".fp-check textarea", "RuntimeError: CUDA error: an illegal memory access was encountered")
    page.click(".fp-check button")
    page.wait_for_selector(".fp-check .fp-no")
    assert "A better fit" in page.inner_text(".fp-check")
    assert watched.errors == [] and watched.foreign_requests() == []


def test_diagnose_page_works_from_a_copy_on_disk(browser: object, built_site: Path) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((built_site / "diagnose" / "index.html").as_uri())
    page.fill("#log-input", "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB")
    assert run_diagnosis(page)[:1] == ["cuda-out-of-memory"]
    assert all(url.startswith("file://") for url in requests)


# Patterns the dialect accepts that V8's backtracking RegExp runs in exponential time (issue 21:
# 5 s on 40 characters, 22 s on 30), each on a 100,000-character line that almost matches.
# Patterns that take exponential time in a backtracking engine, each as (pattern, line of n
# characters): the page's engine (RE2JS) must scan them in time linear in the line's length.
HOSTILE = [("(a|aa)+$", lambda n: "a" * n + "!"), ("zqadv(a|a)*b", lambda n: "zqadv" + "a" * n)]
# The fastest of three scans of one line, in milliseconds, and what it found.
TIMED_SCAN = """([pattern, needles, line]) => {
  const lib = {records: {}, signatures: [{id: "h", record: "h", strength: "specific", pattern, flags: "", needles}]};
  let fastest = Infinity, found = null;
  for (let run = 0; run < 3; run++) {
    const scanner = new FailpediaCore.Scanner(lib);
    const start = performance.now();
    scanner.scanLine(line, 1);
    fastest = Math.min(fastest, performance.now() - start);
    found = Object.keys(scanner.findings);
  }
  return [fastest, found];
}"""


def test_a_hostile_pattern_on_a_long_line_scans_in_linear_time(browser: object, site_url: str) -> None:
    # Measured against itself in the same run, not against the clock: a line 8 times longer
    # takes about 8 times as long in a linear engine (64 times if quadratic; a backtracking
    # engine would not finish). The bound leaves room for a busy host's noise.
    from generator.patterns.translate import needles

    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "diagnose/")
    for pattern, line in HOSTILE:
        short, found_short = page.evaluate(TIMED_SCAN, [pattern, needles(pattern), line(12_500)])
        long, found_long = page.evaluate(TIMED_SCAN, [pattern, needles(pattern), line(100_000)])
        assert found_short == found_long == []
        assert long < 32 * max(short, 1.0), (pattern, short, long)
    assert watched.errors == []


def test_the_page_runs_a_hostile_signature_in_its_worker_like_the_cli(browser: object, site_url: str) -> None:
    from generator.patterns.dialect import compile_pattern
    from generator.patterns.translate import needles

    watched = Watched(browser, site_url)
    page = watched.page

    def with_hostile(route: object) -> None:
        response = route.fetch()  # type: ignore[attr-defined]
        data = response.json()
        sig = {**data["signatures"][0], "id": "hostile", "record": "cuda-out-of-memory", "pattern": "zqadv(a|a)*b"}
        data["signatures"] = [{**sig, "needles": needles(sig["pattern"]), "flags": ""}]
        route.fulfill(response=response, json=data)  # type: ignore[attr-defined]

    page.route("**/api/v1/signatures.json", with_hostile)
    page.goto(site_url + "diagnose/")
    for line, expected in (("zqadv" + "a" * 100_000, []), ("zqadv" + "a" * 100_000 + "b", ["cuda-out-of-memory"])):
        assert bool(compile_pattern("zqadv(a|a)*b").search(line)) == bool(expected)
        reset(page)
        page.fill("#log-input", line)
        assert run_diagnosis(page) == expected
    assert watched.errors == []


def test_the_site_works_from_disk(browser: object, built_site: Path) -> None:
    # Opened as files: the home box searches, a result and a nav link open pages (not
    # directory listings), and nothing is fetched from anywhere but the copy on disk.
    page = browser.new_page()  # type: ignore[attr-defined]
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((built_site / "index.html").as_uri())
    page.fill("#fp-home-query", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    page.wait_for_selector(".md-search-result__item a", timeout=20_000)
    page.click(".md-search-result__item a")
    page.wait_for_selector(".fp-quick[data-entry-id]")
    assert page.url.split("?")[0] == (built_site / "entries" / "cuda-out-of-memory" / "index.html").as_uri()
    page.get_by_role("link", name="Communication", exact=True).first.click()
    page.wait_for_selector("ul.fp-cards")
    assert page.url == (built_site / "categories" / "communication" / "index.html").as_uri()
    page.click("ul.fp-cards a.fp-card-title >> nth=0")
    page.wait_for_selector(".fp-quick[data-entry-id]")
    assert page.url.endswith("/index.html") and page.title().endswith(" - Failpedia")
    assert errors == []
    assert requests and all(url.startswith("file://") for url in requests)


def page_size(page: object, url: str) -> dict[str, int]:
    page.goto(url)  # type: ignore[attr-defined]
    size: dict[str, int] = page.evaluate(  # type: ignore[attr-defined]
        "() => ({height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth,"
        " nav: document.querySelector('.md-nav--primary').getBoundingClientRect().bottom})"
    )
    return size


# A listing may take three screens per 20 records (the issue measured 11,925 px for 20).
SCREENS_PER_20 = 3


def test_listings_fit_their_height_budget_and_no_page_scrolls_sideways_on_a_phone(
    browser: object, site_url: str
) -> None:
    wide = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    listings = [(f"tags/{tag}/", len(entries)) for tag, entries in CATALOG.by_tag.items() if len(entries) >= 10]
    listings += [(f"categories/{name}/", len(entries)) for name, entries in CATALOG.by_category.items()]
    assert "tags/nccl/" in dict(listings)  # the issue measured it at 20 records; it grows with the catalog
    over = {}
    for path, count in listings:
        size = page_size(wide, site_url + path)
        budget = 900 * SCREENS_PER_20 * max(1.0, count / 20)
        if size["height"] > budget or size["width"] > 1280:
            over[path] = size
    assert over == {}
    # The left navigation fits a 900 px window (long hub titles used to push it past).
    assert page_size(wide, site_url)["nav"] <= 900
    phone = browser.new_page(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    paths = ["", "entries/nccl-system-error/", "tags/nccl/", "categories/communication/", "diagnose/"]
    paths += [f"compare/{path.stem}/" for path in sorted((ROOT / "hubs").glob("*.yaml"))]
    sideways = {path: size["width"] for path in paths if (size := page_size(phone, site_url + path))["width"] > 390}
    assert sideways == {}


def test_a_key_line_is_one_truncated_line_until_opened(browser: object, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page.goto(site_url + "tags/nccl/")
    line = page.locator("details.fp-keyline summary >> nth=0")
    closed = line.evaluate("s => [s.scrollWidth > s.clientWidth, s.getBoundingClientRect().height]")
    assert closed[0] is True and closed[1] < 25
    line.click()
    opened = line.evaluate("s => [s.scrollWidth > s.clientWidth, s.getBoundingClientRect().height]")
    # Opened, the whole line wraps: nothing is cut off and it takes at least two lines.
    assert opened[0] is False and opened[1] > 1.5 * closed[1]


ONE_WORD_CODES = """sel => Array.from(document.querySelectorAll(sel))
  .filter(c => c.textContent.trim() && !/\\s/.test(c.textContent.trim()))
  .filter(c => c.getClientRects().length > 1).map(c => c.textContent)"""


def test_hub_tables_keep_the_record_column_in_view_and_identifiers_whole(browser: object, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    for path in sorted((ROOT / "hubs").glob("*.yaml")):
        page.goto(site_url + f"compare/{path.stem}/")
        table = "table.fp-compare"
        assert page.eval_on_selector(f"{table} thead th", "th => th.textContent") in ("Record", "Failure")
        assert page.locator(f"{table} tbody td:first-child a").count() > 3
        scroll = page.evaluate(
            "() => { const box = document.querySelector('.fp-scroll'); const cell = box.querySelector('tbody td a');"
            " const before = cell.getBoundingClientRect().left; box.scrollLeft = 600;"
            " return [box.scrollWidth > box.clientWidth, box.scrollLeft, cell.getBoundingClientRect().left - before,"
            " document.documentElement.scrollWidth]; }"
        )
        assert scroll == [True, 600, 0, 1280], path.stem
        assert page.evaluate(ONE_WORD_CODES, f"{table} code, {table} a") == [], path.stem
        hint = page.get_attribute(".fp-filter", "placeholder")
        assert hint == page.get_attribute(".fp-table-tools", "data-hint") and "NCCL_SOCKET_IFNAME)" not in hint
    page.goto(site_url + "entries/nccl-system-error/")
    assert page.evaluate(ONE_WORD_CODES, "table code") == []
    page.click(".fp-compared a")
    assert page.url.endswith("compare/nccl/#record-nccl-system-error")
    assert page.get_attribute("tr:target td a", "href") == "../../entries/nccl-system-error/"


def test_copy_buttons_sit_beside_the_code(browser: object, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    page.goto(site_url + "entries/nccl-system-error/")
    gaps = page.evaluate(
        "() => Array.from(document.querySelectorAll('pre > .md-code__nav')).map(nav =>"
        " nav.querySelector('button').getBoundingClientRect().left"
        " - nav.parentNode.querySelector('code').getBoundingClientRect().right)"
    )
    assert len(gaps) >= 4 and min(gaps) >= 0, gaps


SHOTS = {
    "home": "",
    "entry": "entries/nccl-system-error/",
    "tag": "tags/nccl/",
    "diagnose": "diagnose/",
    **{f"hub-{path.stem}": f"compare/{path.stem}/" for path in sorted((ROOT / "hubs").glob("*.yaml"))},
}


def test_screenshots_at_desktop_and_phone_widths(browser: object, site_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        watched = Watched(browser, site_url)
        page = watched.page
        page.set_viewport_size({"width": width, "height": height})
        for name, path in SHOTS.items():
            page.goto(site_url + path)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
        page.goto(site_url)
        if width < 800:
            page.click("label.md-header__button[for=__search]")
        page.fill("input.md-search__input", "Watchdog caught collective operation timeout")
        page.wait_for_selector(".md-search-result__item a")
        page.screenshot(path=str(ARTIFACTS / f"search-{width}.png"))
        assert page.title() in ("Failpedia", "Failpedia - Failpedia") and watched.errors == []
        assert page.evaluate("() => document.title") == "Failpedia"


UNMATCHED = (
    "[rank1]: Traceback (most recent call last):\n[rank1]: ValueError: frobnicator 12 out of range\n[rank0]: exiting\n"
)


def test_triage_when_nothing_matches_on_both_pages(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "diagnose/")
    page.fill("#log-input", UNMATCHED)
    assert run_diagnosis(page) == []
    shown = page.inner_text("#findings [data-triage]")
    assert "pasted log:2: [rank1]: ValueError: frobnicator 12 out of range" in shown
    tails = page.eval_on_selector_all("#findings .fp-triage-tail", "els => els.map(e => e.textContent)")
    assert tails == [
        "3: [rank0]: exiting",
        "1: [rank1]: Traceback (most recent call last):\n2: [rank1]: ValueError: frobnicator 12 out of range",
    ]
    command = "failpedia new value-error-frobnicator-out-of-range --category CATEGORY --from-log LOG-FILE"
    assert page.inner_text("#findings .fp-triage-new") == command
    href = page.get_attribute("#findings .fp-triage-search", "href")
    assert href == site_url + "?q=ValueError%3A%20frobnicator%2012%20out%20of%20range"
    page.goto(site_url + "entries/cuda-out-of-memory/")
    page.click(".fp-check summary")
    page.fill(".fp-check textarea", UNMATCHED)
    page.click(".fp-check button")
    page.wait_for_selector(".fp-check [data-triage]")
    assert page.inner_text(".fp-check .fp-triage-new") == command
    assert watched.errors == [] and watched.foreign_requests() == []


SYSTEM_ERROR = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"


def cli_cause_texts(text: str, record: str) -> list[str]:
    matcher = Matcher((*CATALOG.signatures, *fact_signatures()))
    report = diagnose([Source("pasted log", io.BytesIO(text.encode()))], matcher, CATALOG)
    return cause_texts(next(f for f in report.findings if f.entry.id == record))


def test_both_pages_order_causes_by_the_log_as_the_cli_does(browser: object, site_url: str) -> None:
    watched = Watched(browser, site_url)
    page = watched.page
    page.goto(site_url + "diagnose/")
    decided = SYSTEM_ERROR + ", NCCL version 2.25.1\n"
    page.fill("#log-input", decided)
    assert run_diagnosis(page) == ["nccl-system-error"]
    card = "#findings [data-finding-id=nccl-system-error]"
    shown = page.eval_on_selector_all(card + " .fp-cause", "els => els.map(e => e.textContent)")
    assert shown == cli_cause_texts(decided, "nccl-system-error")
    dead_peer = "Another rank or node died (NCCL older than 2.13)"
    assert shown[1] == f"Ruled out: {dead_peer} (NCCL 2.25.1 is >=2.13 (pasted log:1))"
    verdicts = page.eval_on_selector_all(card + " .fp-cause-list > ol > li", "els => els.map(e => e.dataset.verdict)")
    assert verdicts == ["possible"] * 4 + ["ruled out"]
    page.goto(site_url + "entries/nccl-system-error/")
    page.click(".fp-check summary")
    page.fill(".fp-check textarea", SYSTEM_ERROR)
    page.click(".fp-check button")
    page.wait_for_selector(".fp-check .fp-yes")
    shown = page.eval_on_selector_all(".fp-check .fp-cause", "els => els.map(e => e.textContent)")
    assert shown == [t.replace("pasted log", "pasted") for t in cli_cause_texts(SYSTEM_ERROR, "nccl-system-error")]
    assert shown[0].startswith(f"Most common cause: {dead_peer} (the log does not tell the 5 causes apart; to decide: ")
    assert watched.errors == [] and watched.foreign_requests() == []
