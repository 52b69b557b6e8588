"""Hand-written oracles: pattern translations per target and the dialect's verdicts.

These tables are typed by hand and never written by the code under test, so a regenerated
golden or export cannot hide a wrong answer.
"""

from __future__ import annotations

import pytest

from generator.patterns.dialect import (
    compile_pattern,
    compile_set,
    compiles,
    dialect_problems,
    engine_text,
    re2_options,
    signature_matches,
)
from generator.patterns.translate import Untranslatable, key_text, needles, to_ere, to_js, to_rust

NESTED = "nested quantifier (a+)+ can backtrack exponentially"
LEADING_CLASS = "a leading repeated class is quadratic in backtracking engines; one class matches the same lines"

# (pattern, ignore_case, GNU grep -E, ripgrep, JavaScript)
TRANSLATIONS = [
    (r"loss \d+ nan", False, "loss [0-9]+ nan", "loss [0-9]+ nan", "loss [0-9]+ nan"),
    (r"rank \D", False, "rank [^0-9]", "rank [^0-9]", "rank [^0-9]"),
    (r"a\sb\Sc", False, "a[[:space:]]b[^[:space:]]c", r"a[\t\n\f\r ]b[^\t\n\f\r ]c", r"a[\t\n\f\r ]b[^\t\n\f\r ]c"),
    (r"id=\w+\W", False, "id=[[:alnum:]_]+[^[:alnum:]_]", "id=[0-9A-Za-z_]+[^0-9A-Za-z_]", r"id=\w+\W"),
    (r"CUDA [a-c]rror", True, "[cC][uU][dD][aA] [a-cA-C][rR][rR][oO][rR]", "(?i:CUDA [a-c]rror)", "CUDA [a-c]rror"),
    (r"[x-z]", True, "[x-zX-Z]", "(?i:[x-z])", "[x-z]"),
    (r"[QR]1", True, "[QRqr]1", "(?i:[QR]1)", "[QR]1"),
    (r"[a-c]", False, "[a-c]", "[a-c]", "[a-c]"),
    (r"x\.y", False, r"x\.y", r"x\.y", r"x\.y"),
    (r"(?:ab|cd)+\s", False, "(ab|cd)+[[:space:]]", r"(?:ab|cd)+[\t\n\f\r ]", r"(?:ab|cd)+[\t\n\f\r ]"),
    (r"[^0-9.]", False, "[^.0-9]", "[^0-9.]", "[^0-9.]"),
    (r"[\d\s]x", False, "[0-9[:space:]]x", r"[0-9\t\n\f\r ]x", r"[0-9\t\n\f\r ]x"),
    (r"foo\bbar", True, r"[fF][oO][oO]\b[bB][aA][rR]", r"(?i:foo(?-u:\b)bar)", r"foo\bbar"),
    (r"a{2,3}$", False, "a{2,3}$", "a{2,3}$", "a{2,3}$"),
    (r"\x41.", False, "A.", "A.", r"A[^\n]"),
    (r"a/b#c", False, "a/b#c", r"a/b\#c", r"a\/b#c"),
    (r"a\tb\fc\vd", False, "a\tb\x0cc\x0bd", r"a\tb\fc\x0Bd", r"a\tb\fc\vd"),
    (r"[\t\v]x", False, "[\t\x0b]x", r"[\t\x0B]x", r"[\t\v]x"),
    (r"[\^\-\]\\a]", False, "[]a^\\-]", r"[\^\-\]\\a]", r"[\^\-\]\\a]"),
    (r"a\&b\~c\-d\#e", False, "a&b~c-d#e", r"a\&b\~c\-d\#e", "a&b~c-d#e"),
    (r"[&~]", False, "[&~]", r"[\&\~]", "[&~]"),
    ("[à-é]x", True, "[à-é][xX]", "(?i:[à-é]x)", "[à-é]x"),  # RE2 folds ASCII only, like grep under LC_ALL=C
    ("[é1]", True, "[é1]", "(?i:[é1])", "[é1]"),
    ("v[0-9]", True, "[vV][0-9]", "(?i:v[0-9])", "v[0-9]"),
    (r"[\x41-\x43]", False, "[A-C]", "[A-C]", "[A-C]"),
    (r"a{2}b{3,}", False, "a{2}b{3,}", "a{2}b{3,}", "a{2}b{3,}"),
]
# Line breaks: grep cannot match them (test below); the Perl-like targets write them escaped.
MODERN_ONLY = [(r"a\rb\nc", r"a\rb\nc", r"a\rb\nc"), (r"[\r\n]", r"[\r\n]", r"[\r\n]")]


@pytest.mark.parametrize(("pattern", "ignore_case", "ere", "rust", "js"), TRANSLATIONS)
def test_translation(pattern: str, ignore_case: bool, ere: str, rust: str, js: str) -> None:
    assert (to_ere(pattern, ignore_case), to_rust(pattern, ignore_case), to_js(pattern)) == (ere, rust, js)


@pytest.mark.parametrize(("pattern", "rust", "js"), MODERN_ONLY)
def test_line_breaks_for_ripgrep_and_javascript(pattern: str, rust: str, js: str) -> None:
    assert (to_rust(pattern), to_js(pattern)) == (rust, js)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"a\nb", "a line break cannot match in grep"),
        (r"[\n]", "a line break inside a class cannot match in grep"),
        (r"[\W]", "\\W inside a class has no POSIX form"),
    ],
)
def test_what_grep_cannot_say_is_refused(pattern: str, reason: str) -> None:
    with pytest.raises(Untranslatable) as caught:
        to_ere(pattern)
    assert str(caught.value) == reason


DIALECT = [
    ("ok \\d+", []),
    ("x$", []),
    ("(a|b)+", []),
    ("(a+)+", [NESTED]),
    ("x(ab*)*", [NESTED]),
    ("x(?:a|b+){2,}", [NESTED]),
    ("(?:\\w+)*x", [NESTED, LEADING_CLASS]),
    (".*x", ["a leading .* makes every attempt scan the rest of the line"]),
    ("\\s+x", [LEADING_CLASS]),
    ("(?=x)", ["lookaround is not portable"]),
    ("a\\1", ["backreferences are not portable"]),
    ("(?P<n>x)", ["named groups are not portable; use plain groups"]),
    ("(?i)x", ["inline flags are not portable; use the flags field"]),
    ("\\Z", ["\\A, \\Z, \\z and \\G differ between engines"]),
    ("^x", ["^ is not allowed: patterns match anywhere in a line, whose prefixes differ between tools"]),
    ("x$y", ["$ is allowed only at the very end of a pattern"]),
    ("a++", ["possessive and atomic constructs are not portable"]),
    ("[[:alpha:]]", ["POSIX bracket classes are not portable"]),
    ("[]a]", ["a class starting with ] differs in JavaScript; write \\] inside the class"]),
    ("\\e", ["escape \\e is not portable"]),
    (
        "x(",
        [
            "Python re cannot compile it: missing ), unterminated subpattern at position 1",
            "RE2 cannot compile it: missing ): x(",
        ],
    ),
]


@pytest.mark.parametrize(("pattern", "problems"), DIALECT)
def test_dialect_verdict(pattern: str, problems: list[str]) -> None:
    assert dialect_problems(pattern) == problems


KEY_TEXT = [
    ("CUDA out of memory\\. Tried to allocate", "CUDA out of memory. Tried to allocate"),
    ("loss \\d+ nan", "loss … nan"),
    ("Watchdog (caught|saw) timeout", "Watchdog … timeout"),
    ("ab?c", "a … c"),
    ("x+y", "xy"),
    ("ab{2}c", "abc"),
    ("ab*c", "a … c"),
    ("ab{0,2}c", "a … c"),
    ("a?b", "b"),
    ("a(b(c)d)e", "a … e"),
    ("x(?:ab)+y", "x … y"),
    ("CUDA error: (out of memory|oom)", "CUDA error:"),
]


@pytest.mark.parametrize(("pattern", "text"), KEY_TEXT)
def test_key_text(pattern: str, text: str) -> None:
    assert key_text(pattern) == text


@pytest.mark.parametrize(
    ("pattern", "problems"),
    [
        ("[[a]", ["Python re warns: Possible nested set at position 1"]),
        ("\\x41\\d\\.", []),
        ("\\q\\e", ["escape \\q is not portable", "escape \\e is not portable"]),
        ("\\q(", ["escape \\q is not portable"]),
    ],
)
def test_escape_and_warning_verdicts(pattern: str, problems: list[str]) -> None:
    assert dialect_problems(pattern) == problems


@pytest.mark.parametrize(
    ("exc", "text"),
    [(Exception(), ""), (Exception(b"bad \xff"), "bad \ufffd"), (Exception("plain"), "plain"), (Exception(5), "5")],
)
def test_an_engine_message_is_text(exc: Exception, text: str) -> None:
    assert engine_text(exc) == text


def test_patterns_compile_with_their_case_mode_and_match_normalised_lines() -> None:
    assert (compiles("x("), compiles("x"), compiles("[z-a]", True)) == (False, True, False)
    options = re2_options(True)
    assert (options.case_sensitive, options.max_mem, options.log_errors) == (False, 64 << 20, False)
    assert re2_options(False).case_sensitive is True
    assert compile_pattern("a", True).search("A") and not compile_pattern("a").search("A")
    assert compile_pattern("b").search("\udcff b") and not compile_pattern("c").search("\udcff b")
    assert signature_matches(compile_pattern("boom$"), "[rank0]: \x1b[1mboom\x1b[0m \r")
    assert not signature_matches(compile_pattern("rank0"), "[rank0]: boom")


def test_a_pattern_set_reports_every_matching_index_in_both_case_modes() -> None:
    patterns = [("OOM", True), ("boom", False), ("x\\d", False), ("nan", True)]
    found = compile_set(patterns)
    assert [len(indexes) for _, indexes in found.sets] == [2, 2]
    assert found.search("[rank0]: oom boom x1 \udcff") == [0, 1, 2]
    assert found.search("BOOM NaN") == [0, 3]
    assert found.search("") == []
    assert [indexes for _, indexes in compile_set([("a", True)]).sets] == [(0,)]
    assert compile_set([]).sets == ()


NEEDLES = [
    ("CUDA out of memory\\. Tried to allocate", [["CUDA out of memory. Tried to allocate"]]),
    ("loss \\d+ nan", [[" nan"], ["loss "]]),
    ("abcd\\d+xyz", [["xyz"], ["abcd"]]),
    ("Watchdog (caught|saw) timeout", [[" timeout"], ["Watchdog "], ["caught", "saw"]]),
    ("ab?c", [["a"], ["c"]]),
    ("x+y", [["x"], ["y"]]),
    ("abc{2}d", [["abc"], ["d"]]),
    ("ab{0,2}cd", [["cd"], ["a"]]),
    ("a|bc|def", [["a", "bc", "def"]]),
    ("a|\\d", []),
    ("(?:ab)+cd", [["ab"], ["cd"]]),
    ("(ab)?cde", [["cde"]]),
    ("", []),
]


@pytest.mark.parametrize(("pattern", "expected"), NEEDLES)
def test_needles(pattern: str, expected: list[list[str]]) -> None:
    assert needles(pattern) == expected


def test_grep_keeps_a_capital_x_and_is_case_sensitive_by_default() -> None:
    assert (to_ere("Xid"), to_ere("[XY]"), to_ere("abc")) == ("Xid", "[XY]", "abc")


def test_a_carriage_return_in_a_class_cannot_match_in_grep() -> None:
    with pytest.raises(Untranslatable) as caught:
        to_ere("[\\r]")
    assert str(caught.value) == "a line break inside a class cannot match in grep"


@pytest.mark.parametrize(("pattern", "text"), [("ab?", "a"), ("a|b", "a … b")])
def test_key_text_ends_and_alternations(pattern: str, text: str) -> None:
    assert key_text(pattern) == text


def test_class_ranges_and_members_per_target() -> None:
    assert (to_rust("[_(-+]"), to_js("[_(-+]")) == ("[_(-+]", "[_(-+]")
    assert (to_rust("[a-]"), to_js("[a-]"), to_ere("[a-]")) == ("[a\\-]", "[a\\-]", "[a-]")
    assert (to_rust("a\\Bb"), to_js("a\\Bb"), to_ere("a\\Bb")) == ("a(?-u:\\B)b", "a\\Bb", "a\\Bb")
    with pytest.raises(Untranslatable) as caught:
        to_rust("[\\D]")
    assert str(caught.value) == "\\D inside a class"


def test_needles_and_key_text_of_escaped_operators_groups_and_counted_repeats() -> None:
    assert needles("a\\+b") == [["a+b"]]
    assert needles("x(?:ab|cd)y") == [["ab", "cd"], ["x"], ["y"]]
    assert key_text("a{2}bc{3}d") == "abcd"
