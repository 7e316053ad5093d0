"""Server-side request forgery guard for webhook targets and Web Push endpoints.

A webhook or a push subscription makes this server send requests to an address a player chose.
Without a guard a player could make it call the cloud metadata service, the database or an admin
port on the private network. So the host is resolved and every address it resolves to must be globally
reachable, by an explicit rule (the IANA special-purpose ranges written out below, not the
running Python's ``ipaddress`` tables, which differ between versions), with IPv6 forms that carry
an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) judged by that address too; unless the
operator allows it (``WEBHOOK_ALLOW_PRIVATE`` or a network in ``WEBHOOK_ALLOWED_NETWORKS``).
The check runs at registration and again whenever a delivery opens a connection, and the connection
goes to the address that was checked (streams.outbound's network backend; :func:`post_pinned` for a
one-off request), against DNS rebinding between check and connect.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeTarget(Exception):
    def __init__(self, reason: str, **details: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details


@dataclass
class Target:
    """A checked URL: where to connect (``address``) and what to say (host, port, path)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str
    addresses: list[str] = field(default_factory=list)

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port in (80, 443) else f"{host}:{self.port}"

    @property
    def pinned_url(self) -> httpx.URL:
        """The URL with the checked address for its host. Built from parts, not joined, so that a
        path such as ``//elsewhere/x`` stays a path and cannot name another host."""
        path, mark, query = self.path.partition("?")
        url = httpx.URL(scheme=self.scheme, host=self.address, port=self.port, path=path)
        return url.copy_with(query=quote(query, safe="!$&'()*+,;=:@/?%").encode()) if mark else url


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n.strip(), strict=False) for n in settings.WEBHOOK_ALLOWED_NETWORKS]


def _nets(*pairs: tuple[str, str]) -> list[tuple[Any, str]]:
    return [(ipaddress.ip_network(net), kind) for net, kind in pairs]


#: IPv4 addresses that are not globally reachable: the IANA IPv4 Special-Purpose Address Registry
#: (RFC 6890 and its updates) with "Globally Reachable: False" or "N/A", plus multicast and the
#: reserved class E. Written out so that the decision does not depend on the tables of the Python
#: version that runs it. 192.0.0.0/24 is refused whole (its two global /32 anycasts serve no webhook).
IPV4_NOT_GLOBAL = _nets(
    ("0.0.0.0/8", "unspecified"),            # "this network" (RFC 791)
    ("10.0.0.0/8", "private"),               # RFC 1918
    ("100.64.0.0/10", "shared"),             # carrier-grade NAT (RFC 6598)
    ("127.0.0.0/8", "loopback"),             # RFC 1122
    ("169.254.0.0/16", "link_local"),        # RFC 3927 (cloud metadata lives here)
    ("172.16.0.0/12", "private"),            # RFC 1918
    ("192.0.0.0/24", "protocol"),            # IETF protocol assignments (RFC 6890), 192.0.0.8 among them
    ("192.0.2.0/24", "documentation"),       # TEST-NET-1 (RFC 5737)
    ("192.88.99.0/24", "relay"),             # deprecated 6to4 relay anycast (RFC 7526)
    ("192.168.0.0/16", "private"),           # RFC 1918
    ("198.18.0.0/15", "benchmarking"),       # RFC 2544
    ("198.51.100.0/24", "documentation"),    # TEST-NET-2
    ("203.0.113.0/24", "documentation"),     # TEST-NET-3
    ("224.0.0.0/4", "multicast"),            # RFC 5771
    ("240.0.0.0/4", "reserved"),             # class E (RFC 1112), 255.255.255.255 broadcast included
)

#: IPv6: only global unicast space (2000::/3, RFC 4291) is reachable, less the IANA IPv6
#: Special-Purpose Address Registry's blocks inside it that are not globally reachable. Forms that
#: carry an IPv4 address are unwrapped first (see :func:`embedded_ipv4`).
IPV6_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
IPV6_NOT_GLOBAL = _nets(
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("64:ff9b:1::/48", "nat64_local"),       # local-use NAT64 (RFC 8215): an internal translator
    ("100::/64", "discard"),                 # RFC 6666
    ("2001::/23", "protocol"),               # IETF protocol assignments (RFC 2928), Teredo included
    ("2001:db8::/32", "documentation"),      # RFC 3849
    ("3fff::/20", "documentation"),          # RFC 9637
    ("5f00::/16", "segment_routing"),        # SRv6 SIDs (RFC 9602)
    ("fc00::/7", "private"),                 # unique local (RFC 4193)
    ("fe80::/10", "link_local"),             # RFC 4291
    ("fec0::/10", "site_local"),             # deprecated (RFC 3879)
    ("ff00::/8", "multicast"),               # RFC 4291
)
#: IPv6 blocks inside 2001::/23 that the registry marks globally reachable.
IPV6_GLOBAL_EXCEPTIONS = [ipaddress.ip_network(n) for n in (
    "2001:1::1/128", "2001:1::2/128",        # PCP and TURN anycast (RFC 7723, RFC 8155)
    "2001:3::/32",                           # AMT (RFC 7450)
    "2001:4:112::/48",                       # AS112-v6 (RFC 7535)
    "2001:20::/28", "2001:30::/28",          # ORCHIDv2, drone remote ID (RFC 7343, RFC 9374)
)]

IPV4_MAPPED = ipaddress.ip_network("::ffff:0:0/96")    # RFC 4291: the IPv4 host itself
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")        # RFC 4291, deprecated
NAT64 = ipaddress.ip_network("64:ff9b::/96")           # well-known NAT64 prefix (RFC 6052)
SIX_TO_FOUR = ipaddress.ip_network("2002::/16")        # RFC 3056: bits 16-47 are the IPv4 router
TEREDO = ipaddress.ip_network("2001::/32")             # RFC 4380: server in bits 32-63, client XORed in the last 32


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[tuple[ipaddress.IPv4Address, str]]:
    """The IPv4 addresses an IPv6 address stands for or tunnels to, each with the form's name.

    Packets to these forms end up at (or are relayed through) the IPv4 address, so it must pass too:
    ``[2002:7f00:1::]`` (6to4) and ``[64:ff9b::7f00:1]`` (NAT64) both mean 127.0.0.1."""
    value = int(address)
    if address in IPV4_MAPPED:
        return [(ipaddress.IPv4Address(value & 0xFFFFFFFF), "ipv4_mapped")]
    if address in NAT64:
        return [(ipaddress.IPv4Address(value & 0xFFFFFFFF), "nat64")]
    if address in IPV4_COMPATIBLE and value > 1:
        return [(ipaddress.IPv4Address(value & 0xFFFFFFFF), "ipv4_compatible")]
    if address in SIX_TO_FOUR:
        return [(ipaddress.IPv4Address((value >> 80) & 0xFFFFFFFF), "6to4")]
    if address in TEREDO:
        return [(ipaddress.IPv4Address((value >> 64) & 0xFFFFFFFF), "teredo_server"),
                (ipaddress.IPv4Address(~value & 0xFFFFFFFF), "teredo_client")]
    return []


def _ipv4_refusal(address: ipaddress.IPv4Address) -> str | None:
    return next((kind for net, kind in IPV4_NOT_GLOBAL if address in net), None)


def _ipv6_refusal(address: ipaddress.IPv6Address) -> str | None:
    for inner, form in embedded_ipv4(address):
        kind = _ipv4_refusal(inner)
        if kind is not None:
            return f"{form}_{kind}"
    if address in IPV4_MAPPED or address in NAT64:
        return None  # the IPv4 host itself, or it through the public NAT64 prefix: checked above
    if address in IPV4_COMPATIBLE and int(address) > 1:
        return "ipv4_compatible"  # deprecated, never routed
    for net, kind in IPV6_NOT_GLOBAL:
        if address in net and not any(address in ok for ok in IPV6_GLOBAL_EXCEPTIONS):
            return kind
    if address not in IPV6_GLOBAL_UNICAST:
        return "reserved"
    return None


def address_refusal(address: IPAddress) -> str | None:
    """Why this address must not be called, or None when it may: only globally reachable
    addresses pass, unless the operator allows private ones or the address's network."""
    if isinstance(address, ipaddress.IPv6Address) and address in IPV4_MAPPED:
        address = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)  # the same host: one rule for both
    if settings.WEBHOOK_ALLOW_PRIVATE or any(address in net for net in _allowed_networks()):
        return None
    if isinstance(address, ipaddress.IPv4Address):
        return _ipv4_refusal(address)
    return _ipv6_refusal(address)


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeTarget("unresolvable", host=host) from exc
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0]).split("%", 1)[0]
        if address not in seen:
            seen.append(address)
    return seen


def _split(url: str) -> tuple[str, str, int, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeTarget("scheme", scheme=parts.scheme)
    if parts.username or parts.password:
        raise UnsafeTarget("credentials_in_url")
    host = parts.hostname
    if not host:
        raise UnsafeTarget("no_host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeTarget("bad_port") from exc
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return parts.scheme, host, port, path


def url_checked_shape(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of a URL that may be called, before its address is known (which the
    delivery's connection checks when it is opened); raises UnsafeTarget."""
    return _split(url)


def check_url(url: str) -> Target:
    """Parse, resolve and check; raises UnsafeTarget. Every resolved address must pass."""
    scheme, host, port, path = _split(url)
    addresses = resolve(host, port)
    if not addresses:
        raise UnsafeTarget("unresolvable", host=host)
    for text in addresses:
        refusal = address_refusal(ipaddress.ip_address(text))
        if refusal is not None:
            raise UnsafeTarget("private_address", address=text, kind=refusal)
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0], addresses=addresses)


def literal_target(url: str) -> Target | None:
    """The target of a URL whose host is an address literal, unchecked (None for a name): for an
    address the caller allows by its own rule. Raises UnsafeTarget for a malformed URL."""
    scheme, host, port, path = _split(url)
    try:
        address = str(ipaddress.ip_address(host))
    except ValueError:
        return None
    return Target(scheme=scheme, host=host, port=port, path=path, address=address, addresses=[address])


def post_pinned(client: httpx.Client, target: Target, *, content: bytes,
                headers: Mapping[str, str]) -> httpx.Response:
    """POST to the address that was checked, never to what the name resolves to by now: the URL
    carries the address; ``Host`` and, for https, the TLS server name (SNI and the certificate's
    check) carry the name."""
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return client.post(target.pinned_url, content=content, headers={"Host": target.host_header, **headers},
                       extensions=extensions)
