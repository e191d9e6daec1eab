"""The web policy: URL verdicts (with the rule that fired) and the address check."""

from __future__ import annotations

import ipaddress

import pytest

from routescope.research._policy import (
    DEFAULT_POLICY,
    WebPolicy,
    address_verdict,
    host_matches,
    parse_ipv4_like,
    verdict,
)

ANY_HOST = WebPolicy(allowed_hosts=())

LOOPBACK_SPELLINGS = [
    "http://127.0.0.1/",
    "http://127.0.0.1./",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://0X7F.0.0.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://017700000001/",
    "http://0x7f.0x0.0x0.0x1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "https://127.0.0.1:443/",
    "HTTP://127.0.0.1/",
]

PRIVATE_SPELLINGS = [
    "http://10.0.0.1/",
    "http://167772161/",  # 10.0.0.1
    "http://192.168.1.1/",
    "http://0xc0.0xa8.1.1/",
    "http://172.16.0.1/",
    "http://100.64.0.1/",  # CGNAT
    "http://169.254.169.254/latest/meta-data/",
    "http://0xa9fea9fe/",  # 169.254.169.254
    "http://2852039166/",  # 169.254.169.254
    "http://[fd00:ec2::254]/",
    "http://[fe80::1%25eth0]/",
    "http://[fc00::1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.0.9/",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[ff02::1]/",
    "http://[::]/",
    "http://[::ffff:10.0.0.1]/",
    "http://198.18.0.1/",
]


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS + PRIVATE_SPELLINGS)
def test_private_addresses_are_refused_in_every_spelling(url: str) -> None:
    result = ANY_HOST.verdict(url)
    assert not result.allowed, result
    assert result.rule in {"address-literal", "blocked-host"}, result


@pytest.mark.parametrize(
    "url",
    ["http://0177.0.0.1/", "http://1.2.3.4.5/", "http://999.1.1.1/", "http://example.123/"],
)
def test_malformed_numeric_hosts_are_refused(url: str) -> None:
    result = ANY_HOST.verdict(url)
    assert (result.allowed, result.rule) == (False, "invalid-url")


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("0x7f.0.0.0x1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("0", "0.0.0.0"),
        ("1.2.3.4", "1.2.3.4"),
    ],
)
def test_ipv4_is_parsed_like_inet_aton(spelling: str, expected: str) -> None:
    assert parse_ipv4_like(spelling) == ipaddress.IPv4Address(expected)


@pytest.mark.parametrize(
    "spelling", ["example.com", "1.2.3.4.5", "256.1.1.1", "1.16777216", "08.0.0.1", "0xg.1", ""]
)
def test_non_ipv4_spellings_are_not_parsed(spelling: str) -> None:
    assert parse_ipv4_like(spelling) is None


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("ftp://docs.python.org/", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("http://good@127.0.0.1/", "userinfo"),
        ("http://docs.python.org@127.0.0.1/", "userinfo"),
        ("http://user:pass@docs.python.org/", "userinfo"),
        ("http://docs.python.org:8080/", "port"),
        ("http://docs.python.org:22/", "port"),
        ("http://localhost/", "blocked-host"),
        ("http://LOCALHOST./", "blocked-host"),
        ("http://api.localhost/", "blocked-host"),
        ("http://printer.local/", "blocked-host"),
        ("http://metadata.google.internal/", "blocked-host"),
        ("http://example.com/", "not-allowed-host"),
        ("http://python.org.evil.com/", "not-allowed-host"),
        ("http://evildocs.python.org.com/", "not-allowed-host"),
        ("not a url at all", "scheme"),
        ("http:///nohost", "no-host"),
    ],
)
def test_default_policy_refusals_name_their_rule(url: str, rule: str) -> None:
    result = verdict(url)
    assert (result.allowed, result.rule) == (False, rule), result
    assert result.detail


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.python.org/3/library/asyncio.html",
        "https://DOCS.Python.ORG./3/",
        "http://docs.python.org:80/",
        "https://developer.mozilla.org:443/en-US/",
        "https://es.stackoverflow.com/questions",
    ],
)
def test_default_policy_allows_the_seed_hosts(url: str) -> None:
    result = DEFAULT_POLICY.verdict(url)
    assert (result.allowed, result.rule) == (True, "allowed-host"), result


def test_blocklist_wins_over_allowlist_and_wildcards_match_subdomains_only() -> None:
    policy = WebPolicy(allowed_hosts=("example.com",), blocked_hosts=("*.bad.example.com",))
    assert policy.verdict("https://www.example.com/").allowed
    assert policy.verdict("https://bad.example.com/").allowed
    refused = policy.verdict("https://x.bad.example.com/")
    assert (refused.allowed, refused.rule) == (False, "blocked-host")
    assert host_matches("a.b.example.com", "*.example.com")
    assert not host_matches("example.com", "*.example.com")


def test_empty_allowlist_allows_any_public_host_and_idna_is_normalised() -> None:
    assert ANY_HOST.verdict("https://example.com/").rule == "any-host"
    idna = WebPolicy(allowed_hosts=("bücher.de",))
    assert idna.verdict("https://BÜCHER.de/").allowed
    assert idna.verdict("https://xn--bcher-kva.de/").allowed


def test_allowed_ports_and_public_literals() -> None:
    policy = WebPolicy(allowed_hosts=(), allowed_ports=(8080,))
    assert policy.verdict("http://example.com:8080/").allowed
    assert not policy.verdict("http://example.com:8081/").allowed
    assert policy.verdict("http://93.184.216.34/").allowed
    assert policy.verdict("http://[2606:4700:4700::1111]/").allowed


def test_trusted_addresses_never_admit_ip_literals() -> None:
    policy = WebPolicy(allowed_hosts=(), blocked_hosts=(), trusted_addresses=("127.0.0.1",))
    assert policy.address_verdict("127.0.0.1").rule == "address-trusted"
    assert not policy.verdict("http://127.0.0.1/").allowed
    assert not policy.address_verdict("127.0.0.2").allowed


@pytest.mark.parametrize(
    ("address", "allowed", "needle"),
    [
        ("93.184.216.34", True, "global"),
        ("2606:4700:4700::1111", True, "global"),
        ("127.0.0.1", False, "loopback"),
        ("10.1.2.3", False, "private"),
        ("100.100.100.100", False, "carrier-grade NAT"),
        ("169.254.169.254", False, "metadata"),
        ("169.254.1.1", False, "link-local"),
        ("fd00:ec2::254", False, "metadata"),
        ("::ffff:93.184.216.34", False, "IPv4-mapped"),
        ("::ffff:127.0.0.1", False, "carrying IPv4 127.0.0.1"),
        ("64:ff9b::7f00:1", False, "NAT64"),
        ("64:ff9b:1::1", False, "NAT64"),
        ("2002:7f00:1::", False, "6to4"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False, "Teredo"),
        ("224.0.0.1", False, "multicast"),
        ("ff02::1", False, "multicast"),
        ("0.0.0.0", False, "unspecified"),
        ("::", False, "unspecified"),
        ("240.1.2.3", False, "reserved"),
        ("192.0.0.9", False, "IETF"),
        ("2001:db8::1", False, "documentation"),
        ("fe80::1%eth0", False, "link-local"),
        ("not-an-ip", False, "not an IP"),
    ],
)
def test_address_verdict(address: str, allowed: bool, needle: str) -> None:
    result = address_verdict(address)
    assert result.allowed is allowed, result
    assert needle in result.detail, result


def test_the_loopback_and_unspecified_v6_addresses_carry_no_ipv4() -> None:
    """Issue 25 §2: the message for http://[::1]/ mentioned "0.0.0.1"."""
    from routescope.research._policy import DEFAULT_POLICY

    for url, network in (("http://[::1]/", "::1/128"), ("http://[::]/", "::/128")):
        found = DEFAULT_POLICY.verdict(url)
        assert not found.allowed and network in found.detail and "IPv4" not in found.detail
    compatible = DEFAULT_POLICY.verdict("http://[::10.0.0.1]/")
    assert not compatible.allowed and "carrying IPv4 10.0.0.1" in compatible.detail
