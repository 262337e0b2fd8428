"""What kube-apiserver v1.32.13's JSON decoding does before any validation runs: a []byte field
(Secret data, ConfigMap binaryData) is base64 that must decode (encoding/base64 StdEncoding: its
CorruptInputError's offset), and a Secret's docker config is JSON text that must unmarshal into a
map (encoding/json as Go 1.27 builds it on json/v2, with the v1 error texts it keeps)."""

from __future__ import annotations

import base64

from trainops.knowledge.apivalidation.formats import go_quote

_B64 = {
    c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}


def base64_error(text: str) -> int | None:
    """Where base64.StdEncoding.Decode fails on `text` (the byte offset its CorruptInputError
    names), or None when it decodes. Newlines are skipped, as Go does."""
    src = text.encode()
    si, size = 0, len(src)
    while si < size:
        j = 0
        while j < 4:
            if si == size:
                if j == 0:
                    return None
                return si - j
            char = src[si]
            si += 1
            if char in _B64:
                j += 1
                continue
            if char in (10, 13):
                continue
            if char != 61:  # '='
                return si - 1
            if j in (0, 1):
                return si - 1
            if j == 2:
                while si < size and src[si] in (10, 13):
                    si += 1
                if si == size:
                    return size
                if src[si] != 61:
                    return si - 1
                si += 1
            while si < size and src[si] in (10, 13):
                si += 1
            return si if si < size else None
    return None


def base64_decode(text: str) -> bytes:
    """The bytes of base64 text that decodes (base64_error is None)."""
    clean = text.replace("\n", "").replace("\r", "")
    return base64.b64decode(clean + "=" * (-len(clean) % 4))


def json_object_error(data: bytes) -> str | None:
    """The error json.Unmarshal(data, &map[string]interface{}{}) returns, or None."""
    error = _json_syntax_error(data)
    if error is not None:
        return error
    first = data.lstrip(b" \t\r\n")[:1]
    if first == b"{" or first == b"n":  # an object, or null (which leaves the map nil)
        return None
    kind = {b"[": "array", b'"': "string", b"t": "bool", b"f": "bool"}.get(first, "number")
    return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"


def _quote_rune(data: bytes) -> str:
    """jsonwire.QuoteRune: the UTF-8 character `data` starts with, quoted as strconv.QuoteRune
    does (a byte that starts no character as '\\xNN')."""
    for size in range(1, 5):
        try:
            char = data[:size].decode()
        except UnicodeDecodeError:
            continue
        if char == "'":
            return "'\\''"
        if char == '"':
            return "'\"'"
        return "'" + go_quote(char)[1:-1] + "'"
    return f"'\\x{data[0]:x}'"


# The v1 scanner's contexts as kube-apiserver v1.32.13's Go (1.27, encoding/json on json/v2:
# v2_scanner.go transformSyntacticError) words them.
_V2_CONTEXTS = {
    "in string literal": "in string",
    "after decimal point in numeric literal": "in numeric literal",
    "in exponent of numeric literal": "in numeric literal",
}


def _escape_error(data: bytes, at: int) -> tuple[str | None, int]:
    """jsonwire.ConsumeString on the escape at data[at] (a backslash): an error (None: the input
    ends inside it) or "" and the escape's length."""
    size = len(data)
    if at + 2 > size:
        return None, 0
    char = data[at + 1]
    if char in b'"\\/bfnrt':
        return "", 2
    if char == 0x75:  # u
        if at + 6 > size:
            if all(c in _HEX for c in data[at + 2 :]):
                return None, 0
            return _invalid_escape(data[at:]), 0
        if all(c in _HEX for c in data[at + 2 : at + 6]):
            return "", 6
        return _invalid_escape(data[at : at + 6]), 0
    return _invalid_escape(data[at : at + 2]), 0


def _invalid_escape(what: bytes) -> str:
    """jsonwire.InvalidTextError for an escape sequence."""
    text = what.decode(errors="replace")
    if len(text) == 1:
        shown = _quote_rune(what)
    elif any(c == "`" or c == "\ufffd" or c.isspace() or not c.isprintable() for c in text):
        shown = go_quote(text)
    else:
        shown = f"`{text}`"
    return f"invalid escape sequence {shown} in string"


class _Scanner:
    """encoding/json's scanner (scanner.go), state for state: step() takes one byte."""

    __slots__ = ("step", "stack", "error", "end_top", "data", "at")

    def __init__(self, data: bytes) -> None:
        self.step = self.begin_value
        self.stack: list[int] = []  # 0 object key, 1 object value, 2 array value
        self.error: str | None = None
        self.end_top = False
        self.data = data
        self.at = 0

    def fail(self, byte: int, context: str) -> bool:
        if self.at < len(self.data):  # at the end the input ended inside a value
            context = _V2_CONTEXTS.get(context, context)
            self.error = f"invalid character {_quote_rune(self.data[self.at :])} {context}"
        self.step = self.stopped
        return False

    def stopped(self, byte: int) -> bool:
        return False

    def pop(self) -> None:
        self.stack.pop()
        if not self.stack:
            self.step = self.end_top_state
            self.end_top = True
        else:
            self.step = self.end_value

    def begin_value_or_empty(self, byte: int) -> bool:
        if byte in _SPACE:
            return True
        if byte == 0x5D:
            return self.end_value(byte)
        return self.begin_value(byte)

    def begin_value(self, byte: int) -> bool:
        if byte in _SPACE:
            return True
        if byte == 0x7B:
            self.step = self.begin_string_or_empty
            self.stack.append(0)
        elif byte == 0x5B:
            self.step = self.begin_value_or_empty
            self.stack.append(2)
        elif byte == 0x22:
            self.step = self.in_string
        elif byte == 0x2D:
            self.step = self.neg
        elif byte == 0x30:
            self.step = self.zero
        elif 0x31 <= byte <= 0x39:
            self.step = self.one
        elif byte in _LITERALS:
            self.step = _LITERALS[byte](self)
        else:
            return self.fail(byte, "looking for beginning of value")
        return True

    def begin_string_or_empty(self, byte: int) -> bool:
        if byte in _SPACE:
            return True
        if byte == 0x7D:
            self.stack[-1] = 1
            return self.end_value(byte)
        return self.begin_string(byte)

    def begin_string(self, byte: int) -> bool:
        if byte in _SPACE:
            return True
        if byte == 0x22:
            self.step = self.in_string
            return True
        return self.fail(byte, "looking for beginning of object key string")

    def end_value(self, byte: int) -> bool:
        if not self.stack:
            self.step = self.end_top_state
            self.end_top = True
            return self.end_top_state(byte)
        if byte in _SPACE:
            self.step = self.end_value
            return True
        top = self.stack[-1]
        if top == 0:
            if byte == 0x3A:
                self.stack[-1] = 1
                self.step = self.begin_value
                return True
            return self.fail(byte, "after object key")
        if top == 1:
            if byte == 0x2C:
                self.stack[-1] = 0
                self.step = self.begin_string
                return True
            if byte == 0x7D:
                self.pop()
                return True
            return self.fail(byte, "after object key:value pair")
        if byte == 0x2C:
            self.step = self.begin_value
            return True
        if byte == 0x5D:
            self.pop()
            return True
        return self.fail(byte, "after array element")

    def end_top_state(self, byte: int) -> bool:
        if byte not in _SPACE:
            self.fail(byte, "after top-level value")
            return False
        return True

    def in_string(self, byte: int) -> bool:
        if byte == 0x22:
            self.step = self.end_value
        elif byte == 0x5C:
            self.step = self.in_string_escape
        elif byte < 0x20:
            return self.fail(byte, "in string literal")
        return True

    def in_string_escape(self, byte: int) -> bool:
        if byte in b'bfnrt\\/"':
            self.step = self.in_string
            return True
        if byte == 0x75:
            self.step = _hex_digits(self, 4)
            return True
        return self.fail(byte, "in string escape code")

    def neg(self, byte: int) -> bool:
        if byte == 0x30:
            self.step = self.zero
            return True
        if 0x31 <= byte <= 0x39:
            self.step = self.one
            return True
        return self.fail(byte, "in numeric literal")

    def one(self, byte: int) -> bool:
        if byte in _DIGITS:
            self.step = self.one
            return True
        return self.zero(byte)

    def zero(self, byte: int) -> bool:
        if byte == 0x2E:
            self.step = self.dot
            return True
        if byte in (0x65, 0x45):
            self.step = self.exponent
            return True
        return self.end_value(byte)

    def dot(self, byte: int) -> bool:
        if byte in _DIGITS:
            self.step = self.dot_digits
            return True
        return self.fail(byte, "after decimal point in numeric literal")

    def dot_digits(self, byte: int) -> bool:
        if byte in _DIGITS:
            return True
        if byte in (0x65, 0x45):
            self.step = self.exponent
            return True
        return self.end_value(byte)

    def exponent(self, byte: int) -> bool:
        if byte in (0x2B, 0x2D):
            self.step = self.exponent_sign
            return True
        return self.exponent_sign(byte)

    def exponent_sign(self, byte: int) -> bool:
        if byte in _DIGITS:
            self.step = self.exponent_digits
            return True
        return self.fail(byte, "in exponent of numeric literal")

    def exponent_digits(self, byte: int) -> bool:
        if byte in _DIGITS:
            return True
        return self.end_value(byte)


def _hex_digits(scanner: _Scanner, left: int):
    def step(byte: int) -> bool:
        if byte in _HEX:
            scanner.step = scanner.in_string if left == 1 else _hex_digits(scanner, left - 1)
            return True
        return scanner.fail(byte, "in \\u hexadecimal character escape")

    return step


def _literal(word: str):
    def start(scanner: _Scanner):
        return _literal_rest(scanner, word, 1)

    return start


def _literal_rest(scanner: _Scanner, word: str, at: int):
    def step(byte: int) -> bool:
        if byte == ord(word[at]):
            scanner.step = (
                scanner.end_value if at + 1 == len(word) else _literal_rest(scanner, word, at + 1)
            )
            return True
        return scanner.fail(byte, f"in literal {word} (expecting '{word[at]}')")

    return step


_SPACE = frozenset(b" \t\r\n")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")
_LITERALS = {ord(w[0]): _literal(w) for w in ("true", "false", "null")}


def _json_syntax_error(data: bytes) -> str | None:
    """The syntax error json.Unmarshal reports first, worded as the server's Go words it."""
    scanner = _Scanner(data)
    at, size = 0, len(data)
    while at < size:
        byte = data[at]
        if byte == 0x5C and scanner.step == scanner.in_string:
            error, length = _escape_error(data, at)
            if error is None:
                return "unexpected end of JSON input"
            if error:
                return error
            at += length
            continue
        scanner.at = at
        if not scanner.step(byte):
            return scanner.error
        at += 1
    if scanner.end_top:
        return None
    scanner.at = size
    scanner.step(0x20)
    if scanner.end_top:
        return None
    return "unexpected end of JSON input"
