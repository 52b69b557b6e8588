"""Translate portable-dialect patterns into other engines' syntax, exactly or not at all.

A pattern is read into tokens once; each target (GNU grep -E, ripgrep) writes the tokens
in its own syntax. What a target cannot express exactly raises Untranslatable, so an
exporter reports the signature by id instead of shipping a pattern that means something else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

META_OUTSIDE = set(".[]()*+?{}|^$\\")
# Characters that tokenize reads as literals with no look-ahead (everything else branches).
PLAIN_RUN = re.compile(r"[^\\\[({.$)|*+?]+")
NAMED = set("dDsSwW")


class Untranslatable(ValueError):
    """The pattern has no exact equivalent in the target syntax."""


class Token(NamedTuple):
    """One piece of a pattern: kind is lit, any, named, bound, class, op, group or end."""

    kind: str
    value: str = ""
    members: tuple[tuple[str, str], ...] = ()
    negated: bool = False


def escape_char(pattern: str, index: int) -> tuple[str, int]:
    """Return the literal or class letter of the escape at ``index`` and the next index."""
    char = pattern[index + 1]
    if char == "x":
        return chr(int(pattern[index + 2 : index + 4], 16)), index + 4
    return {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}.get(char, char), index + 2


def read_class(pattern: str, index: int) -> tuple[Token, int]:
    """Return the class token starting at ``index`` (at '[') and the index after it."""
    index += 1
    negated = pattern[index] == "^"
    index += negated
    members: list[tuple[str, str]] = []
    first = True
    while pattern[index] != "]" or first:
        first = False
        if pattern[index] == "\\" and pattern[index + 1] in NAMED:
            members.append(("named", pattern[index + 1]))
            index += 2
            continue
        start, index = escape_char(pattern, index) if pattern[index] == "\\" else (pattern[index], index + 1)
        if pattern[index] == "-" and pattern[index + 1] != "]":
            end, index = (
                escape_char(pattern, index + 1) if pattern[index + 1] == "\\" else (pattern[index + 1], index + 2)
            )
            members.append(("range", start + end))
        else:
            members.append(("char", start))
    return Token("class", members=tuple(members), negated=negated), index + 1


def tokenize(pattern: str) -> list[Token]:
    """Return the tokens of a portable-dialect pattern."""
    tokens = []
    index = 0
    while index < len(pattern):
        plain = PLAIN_RUN.match(pattern, index)
        if plain:  # ordinary characters: one literal token each, without the branches of read_token
            tokens.extend([Token("lit", char) for char in plain.group()])
            index = plain.end()
            continue
        token, index = read_token(pattern, index)
        tokens.append(token)
    return tokens


def read_token(pattern: str, index: int) -> tuple[Token, int]:
    """Return the token that starts at ``index`` (a class, escape, group, repeat or operator) and where it ends."""
    char = pattern[index]
    if char == "[":
        return read_class(pattern, index)
    if char == "\\":
        letter = pattern[index + 1]
        if letter in NAMED or letter in "bB":
            return Token("named" if letter in NAMED else "bound", letter), index + 2
        literal, end = escape_char(pattern, index)
        return Token("lit", literal), end
    if pattern.startswith("(?:", index):
        return Token("group"), index + 3
    if char == "{":
        close = pattern.index("}", index)
        return Token("op", pattern[index : close + 1]), close + 1
    kind = {".": "any", "$": "end"}.get(char, "op" if char in "()|*+?" else "lit")
    return Token(kind, char), index + 1


def other_case(member: tuple[str, str]) -> list[tuple[str, str]]:
    """Return the class members that make ``member`` case-insensitive."""
    kind, value = member
    if kind == "char" and value.isascii() and value.isalpha():
        return [("char", value.swapcase())]
    if kind == "range" and value.isascii() and (value.islower() or value.isupper()) and value.isalpha():
        return [("range", value.swapcase())]
    return []


def fold_members(token: Token, ignore_case: bool) -> list[tuple[str, str]]:
    """Return a class's members, widened to both cases when asked."""
    members = list(token.members)
    if ignore_case:
        members += [extra for member in token.members for extra in other_case(member)]
    return members


ERE_NAMED = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "s": "[[:space:]]",
    "S": "[^[:space:]]",
    "w": "[[:alnum:]_]",
    "W": "[^[:alnum:]_]",
}
ERE_IN_CLASS = {"d": "0-9", "s": "[:space:]", "w": "[:alnum:]_"}


def ere_class(token: Token, ignore_case: bool) -> str:
    """Return a POSIX bracket expression (']' first, '^' not first, '-' last)."""
    chars = [value for kind, value in fold_members(token, ignore_case) if kind == "char"]
    body = "".join(c for c in chars if c not in "]^-\\")
    for kind, value in fold_members(token, ignore_case):
        if kind == "range":
            body += f"{value[0]}-{value[1]}"
        elif kind == "named":
            if value not in ERE_IN_CLASS:
                raise Untranslatable(f"\\{value} inside a class has no POSIX form")
            body += ERE_IN_CLASS[value]
    if "\n" in chars or "\r" in chars:
        raise Untranslatable("a line break inside a class cannot match in grep")
    head = "]" if "]" in chars else ""
    tail = ("^" if "^" in chars else "") + ("\\" if "\\" in chars else "") + ("-" if "-" in chars else "")
    if not (head + body + tail):
        raise Untranslatable("empty class")
    return f"[{'^' if token.negated else ''}{head}{body}{tail}]"


def ere_literal(char: str, ignore_case: bool) -> str:
    """Return one literal character for grep -E."""
    if char in "\n\r":
        raise Untranslatable("a line break cannot match in grep")
    if ignore_case and char.isascii() and char.isalpha():
        return f"[{char.lower()}{char.upper()}]"
    return f"\\{char}" if char in META_OUTSIDE else char


def write(pattern: str, syntax: dict[str, Callable[[Token], str]]) -> str:
    """Return the tokens of ``pattern`` written by the target syntax, one writer per kind."""
    return "".join(syntax.get(token.kind, verbatim)(token) for token in tokenize(pattern))


def verbatim(token: Token) -> str:
    """Return a token that is written the same in every syntax (operators, '.', '$')."""
    return token.value


def to_ere(pattern: str, ignore_case: bool = False) -> str:
    """Return the pattern for GNU grep -E (run with LC_ALL=C for ASCII classes)."""
    syntax: dict[str, Callable[[Token], str]] = {
        "lit": lambda t: ere_literal(t.value, ignore_case),
        "class": lambda t: ere_class(t, ignore_case),
        "named": lambda t: ERE_NAMED[t.value],
        "bound": lambda t: f"\\{t.value}",
        "group": lambda t: "(",
    }
    return write(pattern, syntax)


RUST_NAMED = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "s": "[\\t\\n\\f\\r ]",
    "S": "[^\\t\\n\\f\\r ]",
    "w": "[0-9A-Za-z_]",
    "W": "[^0-9A-Za-z_]",
}
# \d \s \w inside a class, with RE2's ASCII meaning, for the Perl-like targets.
ASCII_IN_CLASS = {"d": "0-9", "s": "\\t\\n\\f\\r ", "w": "0-9A-Za-z_"}


def char_escaper(class_special: set[str], outside_special: set[str], vertical_tab: str) -> Callable[[str, bool], str]:
    """Return a target's writer of one literal character, in or outside a class."""
    controls = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", "\v": vertical_tab}

    def escape(char: str, in_class: bool) -> str:
        if char in controls:
            return controls[char]
        return f"\\{char}" if char in (class_special if in_class else outside_special) else char

    return escape


rust_char = char_escaper(set("[]\\^-&~"), META_OUTSIDE | set("#&-~"), "\\x0B")
js_char = char_escaper(set("[]\\^-"), META_OUTSIDE | {"/"}, "\\v")


def bracket_class(token: Token, char: Callable[[str, bool], str], named: dict[str, str]) -> str:
    """Return a bracket class written with a target's character escaper and class names."""
    body = ""
    for kind, value in token.members:
        if kind == "char":
            body += char(value, True)
        elif kind == "range":
            body += f"{char(value[0], True)}-{char(value[1], True)}"
        elif value in named:
            body += named[value]
        else:
            raise Untranslatable(f"\\{value} inside a class")
    return f"[{'^' if token.negated else ''}{body}]"


def modern_syntax(
    char: Callable[[str, bool], str], named: dict[str, str], in_class: dict[str, str], bound: str
) -> dict[str, Callable[[Token], str]]:
    """Return the writers of a Perl-like target (ripgrep, JavaScript): its escaper and classes."""
    return {
        "lit": lambda t: char(t.value, False),
        "class": lambda t: bracket_class(t, char, in_class),
        "named": lambda t: named[t.value],
        "bound": lambda t: bound.format(t.value),
        "group": lambda t: "(?:",
    }


def to_rust(pattern: str, ignore_case: bool = False) -> str:
    """Return the pattern for ripgrep (Rust regex), ASCII semantics like RE2."""
    body = write(pattern, modern_syntax(rust_char, RUST_NAMED, ASCII_IN_CLASS, "(?-u:\\{})"))
    return f"(?i:{body})" if ignore_case else body


JS_NAMED = {"d": "[0-9]", "D": "[^0-9]", "s": "[\\t\\n\\f\\r ]", "S": "[^\\t\\n\\f\\r ]", "w": "\\w", "W": "\\W"}


def to_js(pattern: str) -> str:
    """Return the pattern for JavaScript's RegExp with RE2's meaning (\\s and . as in RE2)."""
    syntax = modern_syntax(js_char, JS_NAMED, ASCII_IN_CLASS, "\\{}")
    syntax["any"] = lambda t: "[^\\n]"
    return write(pattern, syntax)


def optional(token: Token | None) -> bool:
    """Return True when ``token`` is a quantifier that allows zero repetitions."""
    return token is not None and token.kind == "op" and (token.value in ("?", "*") or token.value.startswith("{0"))


def key_text(pattern: str) -> str:
    """Return the literal text a pattern requires outside groups, gaps written as " … ".

    Every line the pattern matches contains these words, so they name the message it catches
    (shown as the signature's heading, and read by the site search).
    """
    tokens = tokenize(pattern)
    runs: list[str] = []
    current: list[str] = []
    depth = 0
    for index, token in enumerate(tokens):
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "group" or (token.kind == "op" and token.value == "("):
            depth += 1
        elif token.kind == "op" and token.value == ")":
            depth -= 1
        if depth == 0 and token.kind == "lit" and not optional(after):
            current.append(token.value)
            continue
        if token.kind == "op" and (token.value == "+" or token.value.startswith("{")) and not optional(token):
            continue  # a required repetition of the character before keeps the run going
        runs.append("".join(current).strip())
        current = []
    runs.append("".join(current).strip())
    return " … ".join(run for run in runs if run)


def repeats(token: Token | None) -> bool:
    """Return True when ``token`` is a quantifier that allows more than one repetition."""
    return token is not None and token.kind == "op" and (token.value == "+" or token.value.startswith("{"))


def opens(token: Token) -> bool:
    """Return True when ``token`` opens a group."""
    return token.kind == "group" or (token.kind == "op" and token.value == "(")


def closing(tokens: Sequence[Token], start: int) -> int:
    """Return the index of the ``)`` that closes the group opened at ``start``."""
    depth = 0
    for index in range(start, len(tokens)):
        depth += opens(tokens[index])
        depth -= tokens[index].kind == "op" and tokens[index].value == ")"
        if depth == 0:
            return index
    return len(tokens)


def branches(tokens: Sequence[Token]) -> list[list[Token]]:
    """Return the tokens split at alternations outside any group."""
    parts: list[list[Token]] = [[]]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        end = closing(tokens, index) if opens(token) else index
        if token.kind == "op" and token.value == "|":
            parts.append([])
        else:
            parts[-1].extend(tokens[index : end + 1])
        index = end + 1
    return parts


def literal_sets(tokens: Sequence[Token]) -> list[tuple[str, ...]]:
    """Return, in order, the sets of literals of one branch: every match contains one of each set."""
    sets: list[tuple[str, ...]] = []
    current, index = "", 0
    while index < len(tokens):
        token = tokens[index]
        end = closing(tokens, index) if opens(token) else index
        after = tokens[end + 1] if end + 1 < len(tokens) else None
        if token.kind == "lit" and not optional(after):
            current += token.value
            if not repeats(after):
                index += 1
                continue  # a repeated character ends the run: what follows it is not adjacent
        sets.extend([(current,)] if current else [])
        current = ""
        inner = alternatives(tokens[index + 1 : end]) if end > index and not optional(after) else ()
        sets.extend([inner] if inner else [])
        index = end + 1
    return sets + ([(current,)] if current else [])


def chosen(sets: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """Return the set most likely to be rare in healthy lines: the last with no member under 3 characters."""
    usable = [found for found in sets if min(map(len, found)) >= 3]
    return usable[-1] if usable else max(sets, key=lambda found: min(map(len, found)), default=())


def alternatives(tokens: Sequence[Token]) -> tuple[str, ...]:
    """Return one literal per alternative of ``tokens`` (empty when one alternative has none)."""
    picks = [chosen(literal_sets(branch)) for branch in branches(tokens)]
    return tuple(sorted({text for pick in picks for text in pick})) if all(picks) else ()


def needles(pattern: str) -> list[list[str]]:
    """Return sets of literals: every line the pattern matches contains a member of each set.

    A page tests these with substring search before it runs the engine, so most lines never
    reach it; the first set is the one it searches for. Unlike key_text, this never claims
    text a match may lack; an empty list means every line must reach the engine.
    """
    tokens = tokenize(pattern)
    sets = literal_sets(tokens) if len(branches(tokens)) == 1 else [alternatives(tokens)]
    first = chosen([found for found in sets if found])
    return [list(first)] + [list(found) for found in sets if found != first] if first else []
