"""The webhook guard lets only globally reachable addresses through, by its own written-out rule:
IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by it."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from streams.ssrf import UnsafeTarget, address_refusal, check_url

REFUSED = [
    "http://[2002:7f00:1::]/",            # 6to4 of 127.0.0.1
    "http://[2002:a9fe:a9fe::1]/",        # 6to4 of the metadata service 169.254.169.254
    "http://[2002:c0a8:1::]/",            # 6to4 of 192.168.0.1
    "http://192.0.0.8/",                  # IETF protocol assignments
    "http://192.0.0.170/",                # NAT64 discovery
    "http://[64:ff9b::7f00:1]/",          # NAT64 of 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",       # NAT64 of 169.254.169.254
    "http://[64:ff9b:1::a00:1]/",         # local-use NAT64
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo, client 127.0.0.1
    "http://[2001:0:7f00:1::]/",          # Teredo, server 127.0.0.1
    "http://[::ffff:a9fe:a9fe]/",         # IPv4-mapped metadata service
    "http://[::7f00:1]/",                 # IPv4-compatible 127.0.0.1
    "http://[::808:808]/",                # IPv4-compatible, deprecated even for a public address
    "http://[100::1]/",                   # discard-only
    "http://[2001:db8::1]/",              # documentation
    "http://[3fff::1]/",                  # documentation (RFC 9637)
    "http://[5f00::1]/",                  # SRv6
    "http://[fd00::1]/", "http://[fe80::1]/", "http://[fec0::1]/", "http://[ff02::1]/",
    "http://[4000::1]/",                  # outside global unicast space
    "http://192.88.99.1/", "http://198.18.0.1/", "http://198.51.100.7/", "http://203.0.113.9/",
    "http://192.0.2.1/", "http://240.0.0.1/", "http://255.255.255.255/", "http://100.127.255.254/",
]

ALLOWED = ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "2002:5db8:d822::1", "64:ff9b::5db8:d822",
           "::ffff:93.184.216.34", "2001:4:112::1", "192.31.196.1"]


@pytest.mark.parametrize("url", REFUSED)
def test_addresses_that_are_not_globally_reachable_are_refused(url: str) -> None:
    with pytest.raises(UnsafeTarget) as refused:
        check_url(url)
    assert refused.value.reason == "private_address"


@pytest.mark.parametrize("address", ALLOWED)
def test_globally_reachable_addresses_pass(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_the_refusal_names_the_unwrapped_form() -> None:
    assert address_refusal(ipaddress.ip_address("2002:7f00:1::")) == "6to4_loopback"
    assert address_refusal(ipaddress.ip_address("64:ff9b::a00:1")) == "nat64_private"
    assert address_refusal(ipaddress.ip_address("2001:0:4136:e378:8000:63bf:80ff:fffe")) == "teredo_client_loopback"


def test_the_decision_does_not_rest_on_pythons_address_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    for cls in (ipaddress.IPv4Address, ipaddress.IPv6Address):
        for name in ("is_global", "is_private", "is_reserved", "is_loopback", "is_link_local", "is_multicast",
                     "is_unspecified", "is_site_local", "ipv4_mapped", "sixtofour", "teredo"):
            if hasattr(cls, name):
                monkeypatch.setattr(cls, name, property(lambda self: pytest.fail("the table was read")))
    assert address_refusal(ipaddress.ip_address("2002:7f00:1::")) is not None
    assert address_refusal(ipaddress.ip_address("8.8.8.8")) is None


def test_the_operator_may_still_allow_private_addresses_and_networks(settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16", "fd12::/16"]
    assert address_refusal(ipaddress.ip_address("10.20.3.4")) is None
    assert address_refusal(ipaddress.ip_address("::ffff:10.20.3.4")) is None
    assert address_refusal(ipaddress.ip_address("fd12::5")) is None
    assert address_refusal(ipaddress.ip_address("10.21.3.4")) == "private"
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    settings.WEBHOOK_ALLOW_PRIVATE = True
    assert check_url("http://[2002:7f00:1::]/hook").address == "2002:7f00:1::"


@pytest.mark.parametrize("url, pinned, host", [
    ("https://hooks.example.org//127.0.0.1:6379/x?a=1", "https://93.184.216.34//127.0.0.1:6379/x?a=1",
     "hooks.example.org"),
    ("http://hooks.example.org:8080/a/../b?q=ü x", "http://93.184.216.34:8080/b?q=%C3%BC%20x",
     "hooks.example.org:8080"),
    ("https://hooks.example.org", "https://93.184.216.34/", "hooks.example.org"),
])
def test_the_request_goes_to_the_checked_address_and_a_path_cannot_name_another_host(
    url: str, pinned: str, host: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from streams import ssrf

    monkeypatch.setattr(ssrf, "resolve", lambda name, port: ["93.184.216.34"])
    target = check_url(url)
    assert str(target.pinned_url) == pinned and target.pinned_url.host == "93.184.216.34"
    assert target.host_header == host
