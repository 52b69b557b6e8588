"""Find every problem in records: per document (YAML, schema, text) and across the catalog."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import re2

from generator.patterns.dialect import (
    Compiled,
    compile_pattern,
    compile_set,
    compiles,
    dialect_problems,
    engine_text,
    signature_matches,
)
from generator.records.errors import Issue, Location
from generator.records.locate import child_pointer, find_mark, pointer_from_path
from generator.records.model import Catalog, Entry, Signature
from generator.records.placeholders import placeholder_issues
from generator.records.schema import ENTRY_SCHEMA, schema_errors
from generator.records.source import SourceDoc

if TYPE_CHECKING:
    from jsonschema import ValidationError

MAX_MESSAGE = 240
LINE_BREAK = re.compile(r"\r\n|[\r\n]")  # the line ends the matcher splits blocks at
# Ids that would overwrite a site path or are device names on Windows.
RESERVED_IDS = frozenset(
    {"index", "search", "assets", "404", "tags", "compare", "diagnose", "api", "entries", "reference"}
    | {"sitemap", "stylesheets", "javascripts", "con", "prn", "aux", "nul", "clock"}
    | {f"{name}{n}" for name in ("com", "lpt") for n in range(10)}
)


def check_document(doc: SourceDoc, schema: str = ENTRY_SCHEMA) -> list[Issue]:
    """Return every load, schema and text problem of one document, sorted."""
    issues = list(doc.issues)
    if doc.data is None and issues:
        return sorted(issues)
    refused = {issue.pointer for issue in issues if issue.pointer}
    issues.extend(i for i in schema_issues(doc, schema) if i.pointer not in refused)
    return sorted(set(issues))


def schema_issues(doc: SourceDoc, schema: str = ENTRY_SCHEMA) -> list[Issue]:
    """Return the schema errors of ``doc`` located in its file."""
    return [schema_issue(doc, error) for error in schema_errors(schema, doc.data)]


def schema_issue(doc: SourceDoc, error: ValidationError) -> Issue:
    """Return one schema error as an Issue."""
    code, message, pointer = describe(error, pointer_from_path(error.absolute_path))
    mark = doc.key_locs.get(pointer) if code == "additionalProperties" else None
    mark = mark or find_mark(pointer, doc.value_locs, doc.key_locs)
    return Issue(Location(doc.path, *mark), pointer, f"schema.{code}", shorten(message))


def describe(error: ValidationError, pointer: str) -> tuple[str, str, str]:
    """Return (code, message, pointer) for a schema error; unknown fields point at the key."""
    schema: Any = error.schema
    options: Any = error.validator_value
    if error.validator == "additionalProperties" and isinstance(error.instance, dict) and isinstance(schema, dict):
        allowed = set(schema.get("properties", {}))
        extra = sorted(key for key in error.instance if key not in allowed)
        if extra:
            names = ", ".join(repr(key) for key in extra)
            return "additionalProperties", f"unknown field {names}", child_pointer(pointer, extra[0])
    if error.validator == "oneOf" and all("const" in option for option in options):
        allowed_values = ", ".join(repr(option["const"]) for option in options)
        return "enum", f"{error.instance!r} is not one of {allowed_values}", pointer
    return str(error.validator), error.message, pointer


def shorten(message: str) -> str:
    """Return ``message`` cut to a readable length."""
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def check_catalog(catalog: Catalog, unreadable: Collection[str] = (), recalled: Collection[str] = ()) -> list[Issue]:
    """Return every cross-record problem, sorted.

    ``unreadable`` names the ids of records that failed to load (their own errors say why):
    a reference to one of them is not reported again as an unknown id. The signatures of
    the records at the ``recalled`` paths passed these checks before, unchanged: they are
    not compiled and tried on their examples again.
    """
    issues: list[Issue] = []
    for entry in catalog.entries:
        issues.extend(entry_issues(entry, catalog, unreadable))
        issues.extend(condition_issues(entry, catalog))
        issues.extend(placeholder_issues(entry))
        if entry.path not in recalled:
            issues.extend(signature_issues(entry))
    issues.extend(duplicate_issues(catalog))
    issues.extend(rename_issues(catalog))
    return sorted(set(issues))


def issue(entry: Entry, pointer: str, code: str, message: str) -> Issue:
    """Return an Issue located at ``pointer`` in ``entry``."""
    return Issue(entry.location(pointer), pointer, code, message)


def entry_issues(entry: Entry, catalog: Catalog, unreadable: Collection[str] = ()) -> list[Issue]:
    """Return file-name, folder and reference problems of one entry."""
    path = PurePath(entry.path)
    found = []
    if path.stem != entry.id:
        found.append(
            issue(entry, "/id", "catalog.id-mismatch", f"id {entry.id!r} differs from the file name {path.name!r}")
        )
    if entry.id in RESERVED_IDS:
        found.append(
            issue(entry, "/id", "catalog.reserved-id", f"id {entry.id!r} is reserved for a site path or device name")
        )
    if path.parent.parent.name == "entries" and path.parent.name != entry.category:
        message = f"category {entry.category!r} differs from the folder {path.parent.name!r}"
        found.append(issue(entry, "/category", "catalog.category-mismatch", message))
    for pointer, target in referenced_ids(entry):
        if target == entry.id:
            found.append(issue(entry, pointer, "catalog.self-reference", "a record cannot refer to itself"))
        elif target not in catalog.by_id and target not in unreadable:
            found.append(issue(entry, pointer, "catalog.unknown-id", f"no record has id {target!r}"))
    return found


def referenced_ids(entry: Entry) -> Iterator[tuple[str, str]]:
    """Yield (pointer, id) for every record id an entry refers to."""
    for field in ("related", "downstream_of"):
        for index, target in enumerate(entry.get(field, ())):
            yield f"/{field}/{index}", target
    for index, item in enumerate(entry.get("confused_with", ())):
        yield f"/confused_with/{index}/id", item["id"]
    if entry.get("merged_into"):
        yield "/merged_into", entry.get("merged_into")
    for pointer, item in cause_conditions(entry):
        if "record" in item:
            yield f"{pointer}/record", item["record"]


def cause_conditions(entry: Entry) -> Iterator[tuple[str, dict[str, str]]]:
    """Yield (pointer, condition) for every when/unless condition of an entry's causes."""
    for index, cause in enumerate(entry.get("causes", ())):
        for kind in ("when", "unless"):
            for number, item in enumerate(cause.get(kind, ())):
                yield f"/causes/{index}/{kind}/{number}", item


def condition_issues(entry: Entry, catalog: Catalog) -> list[Issue]:
    """Return cause conditions that name an unknown signature or give a pattern outside the dialect."""
    known = {sig.id for sig in catalog.signatures}
    found = []
    for pointer, item in cause_conditions(entry):
        if "signature" in item and item["signature"] not in known:
            message = f"no signature has id {item['signature']!r}"
            found.append(issue(entry, f"{pointer}/signature", "catalog.unknown-signature", message))
        for key in ("line", "log", "host"):
            for problem in dialect_problems(item[key]) if key in item else ():
                found.append(issue(entry, f"{pointer}/{key}", "signature.dialect", problem))
    return found


def fold(text: str) -> str:
    """Return the form under which two ids collide on case-insensitive file systems."""
    return unicodedata.normalize("NFKC", text).casefold()


def duplicate_issues(catalog: Catalog) -> list[Issue]:
    """Return issues for ids and signature ids used twice, on every file that uses them."""
    found = []
    seen: dict[str, Entry] = {}
    for entry in catalog.entries:
        first = seen.setdefault(fold(entry.id), entry)
        if first is not entry:
            found.append(issue(entry, "/id", "catalog.duplicate-id", f"id {entry.id!r} is also used by {first.path}"))
            found.append(issue(first, "/id", "catalog.duplicate-id", f"id {first.id!r} is also used by {entry.path}"))
    return found + duplicate_signature_issues(catalog)


def duplicate_signature_issues(catalog: Catalog) -> list[Issue]:
    """Return an issue at every use of a signature id that is used more than once."""
    uses: dict[str, list[tuple[Entry, Signature]]] = {}
    for entry in catalog.entries:
        for sig in entry.signatures:
            uses.setdefault(sig.id, []).append((entry, sig))
    return [
        issue(entry, f"/signatures/{sig.index}/id", "signature.duplicate-id", f"signature id {sig.id!r} is used twice")
        for pairs in uses.values()
        if len(pairs) > 1
        for entry, sig in pairs
    ]


def rename_issues(catalog: Catalog) -> list[Issue]:
    """Return issues for renamed_from ids that are still live or claimed twice."""
    found = []
    claimed: dict[str, str] = {}
    for entry in catalog.entries:
        for index, old in enumerate(entry.renamed_from):
            pointer = f"/renamed_from/{index}"
            if old in catalog.by_id:
                found.append(issue(entry, pointer, "catalog.rename-conflict", f"{old!r} is still the id of a record"))
            elif claimed.setdefault(old, entry.id) != entry.id:
                found.append(
                    issue(entry, pointer, "catalog.rename-conflict", f"{old!r} is also claimed by {claimed[old]!r}")
                )
    return found


def signature_issues(entry: Entry) -> list[Issue]:
    """Return dialect and example problems of every signature of an entry."""
    found = []
    for sig in entry.signatures:
        base = f"/signatures/{sig.index}"
        problems = dialect_problems(sig.pattern)
        for problem in problems:
            found.append(issue(entry, f"{base}/pattern", "signature.dialect", problem))
        if not problems:
            found.extend(example_issues(entry, sig, base))
    return found


def example_issues(entry: Entry, sig: Signature, base: str) -> list[Issue]:
    """Return issues for examples the pattern misses or wrongly matches."""
    try:
        compiled = compile_pattern(sig.pattern, sig.ignore_case)
    except re2.error as exc:
        return [issue(entry, f"{base}/pattern", "signature.dialect", f"RE2 cannot compile it: {engine_text(exc)}")]
    found = []
    for index, line in enumerate(sig.match):
        if not signature_matches(compiled, line):
            pointer = f"{base}/examples/match/{index}"
            found.append(
                issue(entry, pointer, "signature.example-not-matched", "the pattern does not match this example")
            )
    for index, line in enumerate(sig.no_match):
        if signature_matches(compiled, line):
            pointer = f"{base}/examples/no_match/{index}"
            found.append(issue(entry, pointer, "signature.no-match-matched", "the pattern matches this near miss"))
    return found


def confused_pairs(catalog: Catalog) -> set[frozenset[str]]:
    """Return the pairs of records that declare each other (either way) as easily confused."""
    return {frozenset((entry.id, item["id"])) for entry in catalog.entries for item in entry.get("confused_with", ())}


def collision_issues(catalog: Catalog, healthy: Sequence[tuple[str, str]] = ()) -> list[Issue]:
    """Return signatures that match another record's examples or a line of a healthy log.

    Two records that declare each other in confused_with may share lines; nothing may
    match a healthy log. A signature RE2 cannot compile is left out: its own
    signature.dialect issue says why.
    """
    allowed = confused_pairs(catalog)
    found: list[Issue] = []
    for entry in catalog.entries:
        for sig in entry.signatures:
            if compiles(sig.pattern, sig.ignore_case):
                compiled = compile_pattern(sig.pattern, sig.ignore_case)
                found.extend(example_collisions(entry, sig, compiled, catalog, allowed))
    found.extend(healthy_collisions(catalog, healthy))
    return found


def example_collisions(
    entry: Entry, sig: Signature, compiled: Compiled, catalog: Catalog, allowed: set[frozenset[str]]
) -> Iterator[Issue]:
    """Yield a collision for each other record whose match examples this signature matches."""
    for other in catalog.entries:
        if other.id == entry.id or frozenset((entry.id, other.id)) in allowed:
            continue
        hit = next((s for s in other.signatures if any(signature_matches(compiled, line) for line in s.match)), None)
        if hit is not None:
            message = f"{sig.id!r} matches an example of {hit.id!r} ({other.id}); narrow it or declare confused_with"
            yield issue(entry, f"/signatures/{sig.index}/pattern", "signature.collision", message)


def healthy_collisions(catalog: Catalog, healthy: Sequence[tuple[str, str]]) -> Iterator[Issue]:
    """Yield a collision for each signature that matches a line of a healthy log."""
    signatures = [sig for sig in catalog.signatures if compiles(sig.pattern, sig.ignore_case)]
    patterns = compile_set([(sig.pattern, sig.ignore_case) for sig in signatures])
    for name, text in healthy:
        for line in LINE_BREAK.split(text):
            for index in patterns.search(line):
                sig = signatures[index]
                message = f"{sig.id!r} matches a healthy log ({name}): {line.strip()[:120]!r}"
                where = f"/signatures/{sig.index}/pattern"
                yield issue(catalog.by_id[sig.entry_id], where, "signature.collision", message)


def published_issues(catalog: Catalog, published: Sequence[tuple[Location, str]]) -> list[Issue]:
    """Return published ids that have no record and no successor through renamed_from."""
    return [
        Issue(where, "", "catalog.missing-published-id", f"published id {entry_id!r} has no record and no successor")
        for where, entry_id in published
        if entry_id not in catalog.by_id and entry_id not in catalog.renames
    ]
