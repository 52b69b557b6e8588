"""Format one record for the terminal."""

from __future__ import annotations

import difflib
import shlex
import textwrap
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

from generator.diagnosis.causes import undecided
from generator.diagnosis.diagnose import Finding, Report
from generator.diagnosis.progress import describe
from generator.records.model import CATEGORY_ORDER, Entry

if TYPE_CHECKING:  # triage is imported when a diagnosis needs it: explain starts without it
    from generator.diagnosis.triage import TriageReport

BOLD, DIM, RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
WIDTH = 88


def printable(text: str) -> str:
    """Return ``text`` with control characters shown as escapes, safe for a terminal."""
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf") else f"\\x{ord(ch):02x}" for ch in text
    )


def closest_ids(wanted: str, ids: Iterable[str]) -> list[str]:
    """Return up to five ids that look like ``wanted``: itself in lowercase, close spellings, then ids
    holding it (those that begin with it first)."""
    key, known = wanted.strip().lower(), sorted(ids)
    close = difflib.get_close_matches(key, known, n=5, cutoff=0.5)
    holding = sorted((i for i in known if key and key in i), key=lambda i: not i.startswith(key))
    return list(dict.fromkeys([*(i for i in known if i == key), *close, *holding]))[:5]


def wrap(text: str, indent: str = "  ", hang: int = 0) -> str:
    """Return ``text`` wrapped to the terminal width, continuation lines indented ``hang`` more."""
    later = indent + " " * hang
    return textwrap.fill(" ".join(text.split()), WIDTH, initial_indent=indent, subsequent_indent=later)


def item(label: str, text: str) -> str:
    """Return one list item, wrapped with a hanging indent under its text (not its label)."""
    return wrap(f"{label} {text}", "  ", len(label) + 1)


def paragraphs(text: str) -> list[str]:
    """Return prose wrapped paragraph by paragraph, a blank line between them."""
    parts = [wrap(part) for part in text.split("\n\n") if part.strip()]
    return [line for part in parts for line in (part, "")][:-1]


def heading(text: str, color: bool) -> str:
    """Return a section heading."""
    return f"{BOLD}{text}{RESET}" if color else text.upper()


def section(title: str, lines: list[str], color: bool) -> list[str]:
    """Return a heading followed by its lines and a blank line."""
    return [heading(title, color), *lines, ""] if lines else []


def code_lines(e: Entry) -> list[str]:
    """Return each code example: its stack and title, why it works, and the code indented."""
    lines = []
    for example in e.data.get("code", []):
        lines.append(item("-", f"{example['title']} ({example['stack']}, {example['language']})"))
        lines.extend(f"      {line}" for line in example["code"].rstrip().splitlines())
        lines.append(wrap(f"Why: {example['why']}", "    ", 5))
    return lines


def reference_sections(entry: Entry, color: bool) -> list[str]:
    """Return the sections after the fix: prevention, environment, versions, code, FAQ, scale, look-alikes."""
    e = entry.data
    scale = e.get("scale", {})
    faq = [line for qa in e.get("faq", []) for line in (item("Q:", qa["q"]), wrap(f"A: {qa['a']}", "  ", 3))]
    out = section("Prevention", [item("-", p) for p in e.get("prevention", [])], color)
    out += section("Environment", [item("-", f"{v['name']}: {v['effect']}") for v in e.get("env", [])], color)
    versions = [item("-", f"{v['component']} {v['range']}: {v['note']}") for v in e.get("versions", [])]
    out += section("Versions", versions, color)
    out += section("Code", code_lines(entry), color)
    out += section("FAQ", faq, color)
    out += section("Scale", [item(f"{k}:", scale[k]) for k in ("single", "large") if k in scale], color)
    out += section("Confused with", [item("-", f"{c['id']}: {c['tell']}") for c in e.get("confused_with", [])], color)
    return out


def explain_text(entry: Entry, color: bool = False) -> str:
    """Return the record as terminal text, with ANSI styling when ``color``."""
    e = entry.data
    title = f"{BOLD}{entry.title}{RESET}" if color else entry.title
    out = [title, wrap(entry.summary), ""]
    out += section("Symptoms", [item("-", f"{s['signal']}: {s['meaning']}") for s in e["symptoms"]], color)
    out += section("Observations", [item("-", o) for o in e.get("observations", [])], color)
    out += section("Mechanism", paragraphs(e.get("mechanism", "")), color)
    causes = [item(f"{i}.", f"{c['title']}: {c['detail']}") for i, c in enumerate(e["causes"], 1)]
    out += section("Root causes", causes, color)
    out += section("Confirm", [item("[ ]", c) for c in e["confirm"]], color)
    out += section("Fix", fix_lines(entry), color)
    out += reference_sections(entry, color)
    out += section("Affected", [item("-", a) for a in e.get("affected", [])], color)
    out += section("Fingerprints", [f"  {sig.id}: {sig.pattern}" for sig in entry.signatures], color)
    out += section("References", [f"  {r['title']} <{r['url']}>" for r in e["references"]], color)
    footer = f"entries/{entry.id}/ · {entry.path}"
    out.append(f"{DIM}{footer}{RESET}" if color else footer)
    return printable("\n".join(out))


def fix_lines(entry: Entry) -> list[str]:
    """Return the numbered fix steps with their commands, and the verification."""
    fix = entry.data["fix"]
    lines = []
    for number, step in enumerate(fix["steps"], 1):
        lines.append(item(f"{number}.", step["text"]))
        if step.get("command"):
            lines.extend(f"      {line}" for line in step["command"].rstrip().splitlines())
    lines.append(item("Verify:", fix["verify"]))
    return lines


def where_lines(finding: Finding) -> list[str]:
    """Return where a finding was seen: its ranks and files, and the first line by time."""
    parts = []
    if finding.ranks:
        parts.append("rank" + ("s " if len(finding.ranks) > 1 else " ") + ", ".join(map(str, sorted(finding.ranks))))
    if len(finding.files) > 1:
        parts.append(f"{len(finding.files)} files")
    first = finding.first
    when = f" at {first.timestamp}" if first.timestamp else ""
    seen = f"Seen on {' in '.join(parts)}; " if parts else ""
    return [wrap(f"{seen}first {first.file}:{first.line}{when}", "   ")] if parts or when else []


def cause_texts(finding: Finding) -> list[str]:
    """Return the causes as the log orders them: the likely one with why, the ruled-out ones, or a next check.

    The page's core (failpedia-core.js, causeLines) writes the same texts; tests/test_js_core.py holds them equal.
    """
    judged = finding.causes
    if not judged:
        return []
    best = judged[0]
    if len(judged) == 1:
        return [f"Cause: {best.title}"]
    if undecided(judged):
        check = finding.entry.data["confirm"][0]
        note = f"the log does not tell the {len(judged)} causes apart; to decide: {check}"
        return [f"Most common cause: {best.title} ({note})"]
    lines = [
        f"Likely cause: {best.title} ({'; '.join(best.reasons)})"
        if best.verdict == "supported"
        else f"Possible cause: {best.title}"
    ]
    lines += [f"Ruled out: {j.title} ({'; '.join(j.reasons)})" for j in judged[1:] if j.verdict == "ruled out"]
    return lines


def cause_lines(finding: Finding) -> list[str]:
    """Return the cause texts wrapped for the terminal."""
    return [wrap(text, "   ") for text in cause_texts(finding)]


def finding_lines(rank: int, finding: Finding, color: bool, site_url: str) -> list[str]:
    """Return the terminal lines for one finding."""
    entry = finding.entry
    title = f"{BOLD}{entry.title}{RESET}" if color else entry.title
    lines = [f"{rank}. {title}  [{finding.role}, score {finding.score:g}]"]
    for e in finding.evidence[:3]:
        text = e.text if len(e.text) <= 200 else e.text[:197] + "..."
        lines.append(f"   {e.file}:{e.line}: {text}")
    if finding.lines > 3:
        lines.append(f"   (+{finding.lines - 3} more matching line(s); --json lists {len(finding.evidence)})")
    lines.extend(where_lines(finding))
    lines.extend(cause_lines(finding))
    lines.append(wrap(f"First fix: {entry.data['fix']['steps'][0]['text']}", "   "))
    url = f"{site_url.rstrip('/')}/entries/{entry.id}/" if site_url else f"entries/{entry.id}/ on the site"
    lines.append(f"   More: failpedia explain {entry.id} · {url}")
    return lines


def clipped(text: str) -> str:
    """Return a log line cut to 200 characters for the terminal."""
    return text if len(text) <= 200 else text[:197] + "..."


def triage_text(triage: TriageReport, site_url: str) -> list[str]:
    """Return the answer when nothing matched: error-like lines, each rank's last lines, next steps."""
    from generator.diagnosis.triage import new_command, search_url

    if triage.lines:
        out = ["Lines that look most like errors, first by time (shown as found, not a diagnosis):"]
        out += [f"   {i.file}:{i.line}: {clipped(i.text)}" for i in triage.lines]
    else:
        out = ["No line looks like an error."]
    if triage.tails:
        out.append("Last lines of each rank:")
    for group in triage.tails:
        out.append(f"   {group.file}, {'no rank' if group.rank is None else f'rank {group.rank}'}:")
        out += [f"     {line}: {clipped(text)}" for line, text in group.lines]
    if triage.omitted_groups:
        out.append(f"   (+{triage.omitted_groups} more ranks; --json lists the same {len(triage.tails)})")
    if triage.query:
        url = search_url(triage, site_url)
        out.append(
            f"Search for the key line: {url}"
            if url
            else f"Search for the key line: failpedia search {shlex.quote(triage.query)}"
        )
    out.append(f"Start a record from this log: {new_command(triage)}")
    out.append(wrap(f"(CATEGORY: one of {', '.join(CATEGORY_ORDER)})", "   "))
    return out


def report_text(report: Report, top: int, color: bool, site_url: str, triage: TriageReport | None = None) -> str:
    """Return the diagnosis for people: hangs across ranks, then the top findings, best first (or the triage)."""
    out: list[str] = []
    for hang in report.hangs:
        headline, *rest = describe(hang)
        out.extend([wrap(headline, ""), *(wrap(line, "   ") for line in rest), ""])
    if not report.findings:
        out.append("No known failure signature matched.")
        return printable("\n".join(out + (triage_text(triage, site_url) if triage else [])))
    for rank, finding in enumerate(report.findings[:top], 1):
        out.extend(finding_lines(rank, finding, color, site_url))
        out.append("")
    more = len(report.findings) - top
    if more > 0:
        out.append(f"(+{more} more; use --top {len(report.findings)})")
    return printable("\n".join(out).rstrip("\n"))
