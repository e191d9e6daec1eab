"""The web policy of deep research: which URLs may be fetched, and which addresses may be dialled.

Two checks, both explaining themselves with the rule that fired:

* :meth:`WebPolicy.verdict` on a URL, before any network I/O (scheme, userinfo, port, host
  allowlist and blocklist, IP literals in every spelling browsers and ``inet_aton`` accept);
* :func:`address_verdict` on every address a host name resolves to, after resolution (the real
  control: the fetcher then connects to the checked address only).

Search result URLs are attacker-influenced; provider endpoints are trusted configuration and do
not go through this module.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Final

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# The seed's defaults (`web.allowedHosts`, `web.blockedHosts`, `web.maxResults`).
DEFAULT_ALLOWED_HOSTS: Final = (
    "nodejs.org",
    "docs.python.org",
    "developer.mozilla.org",
    "stackoverflow.com",
    "vitejs.dev",
)
# The seed's three names, plus the reference's default names (every name matches its subdomains).
DEFAULT_BLOCKED_HOSTS: Final = (
    "localhost",
    "127.0.0.1",
    "0.0.0.0",
    "local",
    "internal",
    "metadata",
    "metadata.google.internal",
    "localdomain",
    "home.arpa",
)
DEFAULT_MAX_RESULTS: Final = 5
SCHEME_PORTS: Final = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a URL or an address may be used, the rule that decided, and why in words."""

    allowed: bool
    rule: str
    detail: str


# Ranges refused after resolution, named for the verdict (the reference's list, §5).
_BLOCKED_NETWORKS: Final[tuple[tuple[str, str], ...]] = (
    ("0.0.0.0/8", "unspecified / this network"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "carrier-grade NAT"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.169.254/32", "cloud metadata"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "6to4 relay anycast"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("255.255.255.255/32", "broadcast"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::ffff:0:0/96", "IPv4-mapped"),
    ("::/96", "IPv4-compatible"),
    ("64:ff9b::/96", "NAT64"),
    ("64:ff9b:1::/48", "NAT64 (local use)"),
    ("100::/64", "discard-only"),
    ("2001::/32", "Teredo"),
    ("2001::/23", "IETF protocol assignments"),
    ("2001:db8::/32", "documentation"),
    ("2002::/16", "6to4"),
    ("fd00:ec2::254/128", "cloud metadata"),
    ("fc00::/7", "unique local"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"),
    ("ff00::/8", "multicast"),
)
_NETWORKS: Final = tuple((ipaddress.ip_network(cidr), name) for cidr, name in _BLOCKED_NETWORKS)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, Teredo, NAT64)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip.is_loopback or ip.is_unspecified:  # ::1 and :: carry no IPv4 (not "0.0.0.1")
        return None
    packed = int(ip)
    if ip in ipaddress.ip_network("64:ff9b::/96") or ip in ipaddress.ip_network("::/96"):
        return ipaddress.IPv4Address(packed & 0xFFFFFFFF)
    return None


def address_verdict(address: IPAddress | str, *, trusted: tuple[str, ...] = ()) -> Verdict:
    """May this (resolved) address be dialled? Only globally routable unicast addresses may.

    ``trusted`` lists addresses the operator vouches for (an internal mirror); it applies to
    resolved names only — :meth:`WebPolicy.verdict` never lets an IP literal through with it.
    """
    try:
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    except ValueError:
        return Verdict(False, "address-invalid", f"{address!r} is not an IP address")
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
        ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
    if str(ip) in trusted:
        return Verdict(True, "address-trusted", f"{ip} is a trusted address (configuration)")
    for network, name in _NETWORKS:
        if ip.version == network.version and ip in network:
            detail = f"{ip} is in {network} ({name})"
            if isinstance(ip, ipaddress.IPv6Address):
                inner = _embedded_ipv4(ip)
                if inner is not None:
                    detail += f", carrying IPv4 {inner}"
            return Verdict(False, "address-blocked", detail)
    if not ip.is_global or ip.is_multicast or ip.is_reserved:
        return Verdict(False, "address-blocked", f"{ip} is not a global unicast address")
    return Verdict(True, "address-public", f"{ip} is a global unicast address")


_NUMERIC_PART = re.compile(r"^(0[xX][0-9a-fA-F]*|[0-9]+)$")


def _parse_part(part: str) -> int | None:
    if not _NUMERIC_PART.match(part):
        return None
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8) if all(c in "01234567" for c in part) else None
    return int(part)


def parse_ipv4_like(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host spells the way browsers and ``inet_aton`` read it, else None.

    Accepts one to four parts, each decimal, octal (leading 0) or hex (0x); the last part fills
    the remaining bytes: ``2130706433``, ``0x7f.1``, ``0177.0.0.1`` and ``127.1`` all give
    127.0.0.1.
    """
    parts = host.rstrip(".").split(".")
    if not 1 <= len(parts) <= 4 or any(p == "" for p in parts):
        return None
    values = [_parse_part(p) for p in parts]
    if any(v is None for v in values):
        return None
    numbers = [v for v in values if v is not None]
    *head, last = numbers
    if any(v > 0xFF for v in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for i, v in enumerate(head):
        value += v << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _looks_numeric(host: str) -> bool:
    """WHATWG: a host whose last label is a number is an IPv4 address, or is invalid."""
    last = host.rstrip(".").rsplit(".", 1)[-1]
    return bool(last) and bool(_NUMERIC_PART.match(last))


def normalise_host(host: str) -> str:
    """Lowercase, no trailing dot, IDNA as punycode (how the policy compares names)."""
    host = host.strip().rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def host_matches(host: str, pattern: str) -> bool:
    """``example.com`` matches itself and its subdomains; ``*.example.com`` only subdomains."""
    pattern = normalise_host(pattern)
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern or host.endswith("." + pattern)


def _literal(host: str) -> IPAddress | Verdict | None:
    """The address an IP-literal host spells, a refusal if it is malformed, else None."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host.replace("%25", "%").split("%", 1)[0])
        except ValueError:
            return Verdict(False, "invalid-url", f"{host!r} is not a valid IPv6 address")
    if _looks_numeric(host):
        ipv4 = parse_ipv4_like(host)
        if ipv4 is None:
            return Verdict(False, "invalid-url", f"{host!r} is a malformed numeric host")
        return ipv4
    return None


def literal_address(host: str) -> IPAddress | None:
    """The address an IP-literal host spells (any spelling ``verdict`` accepts), else None."""
    found = _literal(normalise_host(host))
    return None if isinstance(found, Verdict) else found


@dataclass(frozen=True, slots=True)
class WebPolicy:
    """``web.allowed_hosts`` (empty: any public host), ``web.blocked_hosts`` (wins),
    ``web.max_results``; the ports beyond the scheme's default that may be used; and the
    addresses the operator trusts for resolved names."""

    allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS
    blocked_hosts: tuple[str, ...] = DEFAULT_BLOCKED_HOSTS
    max_results: int = DEFAULT_MAX_RESULTS
    allowed_ports: tuple[int, ...] = ()
    trusted_addresses: tuple[str, ...] = field(default=())

    def verdict(self, url: str | httpx.URL) -> Verdict:
        """May this URL be fetched? Decided before any network I/O, with the rule that fired."""
        try:
            parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
            raw_host = parsed.raw_host.decode("ascii")
        except (httpx.InvalidURL, UnicodeError, TypeError, ValueError) as exc:
            return Verdict(False, "invalid-url", f"not a valid URL: {exc}")
        if parsed.scheme not in SCHEME_PORTS:
            return Verdict(False, "scheme", f"scheme {parsed.scheme or '(none)'!r} is not http(s)")
        if parsed.userinfo:
            return Verdict(False, "userinfo", "URLs with user information (user@host) are refused")
        if not raw_host:
            return Verdict(False, "no-host", "the URL has no host")
        port = parsed.port
        if port not in (None, SCHEME_PORTS[parsed.scheme], *self.allowed_ports):
            return Verdict(False, "port", f"port {port} is not allowed")
        host = normalise_host(raw_host)
        literal = _literal(host)
        if isinstance(literal, Verdict):
            return literal
        for pattern in self.blocked_hosts:
            if host_matches(host, pattern) or (literal is not None and str(literal) == pattern):
                return Verdict(False, "blocked-host", f"{host} matches blocked host {pattern!r}")
        if literal is not None:
            checked = address_verdict(literal)
            if not checked.allowed:
                return Verdict(False, "address-literal", checked.detail)
        if not self.allowed_hosts:
            return Verdict(True, "any-host", f"{host}: no allowlist configured")
        for pattern in self.allowed_hosts:
            if host_matches(host, pattern):
                return Verdict(True, "allowed-host", f"{host} matches allowed host {pattern!r}")
        return Verdict(False, "not-allowed-host", f"{host} is not in the allowlist")

    def address_verdict(self, address: IPAddress | str) -> Verdict:
        """:func:`address_verdict` with this policy's trusted addresses."""
        return address_verdict(address, trusted=self.trusted_addresses)


DEFAULT_POLICY: Final = WebPolicy()


def verdict(url: str | httpx.URL, policy: WebPolicy = DEFAULT_POLICY) -> Verdict:
    """``policy.verdict(url)``."""
    return policy.verdict(url)
