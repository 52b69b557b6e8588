"""Format one record for the terminal."""

from __future__ import annotations

import difflib
import textwrap
import unicodedata
from collections.abc import Iterable

from generator.diagnosis.causes import undecided
from generator.diagnosis.diagnose import Finding, Report
from generator.diagnosis.progress import describe
from generator.records.model import Entry

BOLD, DIM, RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
WIDTH = 88


def printable(text: str) -> str:
    """Return ``text`` with control characters shown as escapes, safe for a terminal."""
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf") else f"\\x{ord(ch):02x}" for ch in text
    )


def closest_ids(wanted: str, ids: Iterable[str]) -> list[str]:
    """Return up to five ids that look like ``wanted``."""
    return difflib.get_close_matches(wanted, sorted(ids), n=5, cutoff=0.5)


def wrap(text: str, indent: str = "  ") -> str:
    """Return ``text`` wrapped to the terminal width."""
    return textwrap.fill(" ".join(text.split()), WIDTH, initial_indent=indent, subsequent_indent=indent)


def heading(text: str, color: bool) -> str:
    """Return a section heading."""
    return f"{BOLD}{text}{RESET}" if color else text.upper()


def section(title: str, lines: list[str], color: bool) -> list[str]:
    """Return a heading followed by its lines and a blank line."""
    return [heading(title, color), *lines, ""] if lines else []


def explain_text(entry: Entry, color: bool = False) -> str:
    """Return the record as terminal text, with ANSI styling when ``color``."""
    e = entry.data
    title = f"{BOLD}{entry.title}{RESET}" if color else entry.title
    out = [title, wrap(entry.summary), ""]
    out += section("Symptoms", [wrap(f"- {s['signal']}: {s['meaning']}") for s in e["symptoms"]], color)
    out += section(
        "Root causes", [wrap(f"{i}. {c['title']}: {c['detail']}") for i, c in enumerate(e["causes"], 1)], color
    )
    out += section("Confirm", [wrap(f"[ ] {item}") for item in e["confirm"]], color)
    out += section("Fix", fix_lines(entry), color)
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
        lines.append(wrap(f"{number}. {step['text']}"))
        if step.get("command"):
            lines.extend(f"      {line}" for line in step["command"].rstrip().splitlines())
    lines.append(wrap(f"Verify: {fix['verify']}"))
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


def cause_lines(finding: Finding) -> list[str]:
    """Return the causes as the log orders them: the likely one with why, the ruled-out ones, or a next check."""
    judged = finding.causes
    if not judged:
        return []
    best = judged[0]
    if len(judged) == 1:
        return [wrap(f"Cause: {best.title}", "   ")]
    if undecided(judged):
        check = finding.entry.data["confirm"][0]
        note = f"the log does not tell the {len(judged)} causes apart; to decide: {check}"
        return [wrap(f"Most common cause: {best.title} ({note})", "   ")]
    lines = []
    if best.verdict == "supported":
        lines.append(wrap(f"Likely cause: {best.title} ({'; '.join(best.reasons)})", "   "))
    else:
        lines.append(wrap(f"Possible cause: {best.title}", "   "))
    for item in judged[1:]:
        if item.verdict == "ruled out":
            lines.append(wrap(f"Ruled out: {item.title} ({'; '.join(item.reasons)})", "   "))
    return lines


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


def report_text(report: Report, top: int, color: bool, site_url: str) -> str:
    """Return the diagnosis for people: the top findings, best first."""
    out: list[str] = []
    for hang in report.hangs:
        headline, *rest = describe(hang)
        out.extend([wrap(headline, ""), *(wrap(line, "   ") for line in rest), ""])
    if not report.findings:
        return printable("\n".join([*out, "No known failure signature matched."]))
    for rank, finding in enumerate(report.findings[:top], 1):
        out.extend(finding_lines(rank, finding, color, site_url))
        out.append("")
    more = len(report.findings) - top
    if more > 0:
        out.append(f"(+{more} more; use --top {len(report.findings)})")
    return printable("\n".join(out).rstrip("\n"))
