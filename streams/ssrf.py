"""Server-side request forgery guard for webhook targets.

A webhook makes this server send requests to an address a player chose. Without a guard a
player could make it call the cloud metadata service, the database or an admin port on the
private network. So the host is resolved and every address it resolves to must be public:
no private, loopback, link-local, multicast, reserved or unspecified address, unless the
operator allows it (``WEBHOOK_ALLOW_PRIVATE`` or a network in ``WEBHOOK_ALLOWED_NETWORKS``).
The check runs at registration and again at each delivery, and the delivery connects to the
address that was checked (against DNS rebinding between check and connect).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from streams.conf import setting

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


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n.strip(), strict=False) for n in setting("WEBHOOK_ALLOWED_NETWORKS")]


def address_refusal(address: IPAddress) -> str | None:
    """Why this address must not be called, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if setting("WEBHOOK_ALLOW_PRIVATE") or any(address in net for net in _allowed_networks()):
        return None
    for reason in ("loopback", "link_local", "multicast", "unspecified", "private", "reserved"):
        if getattr(address, f"is_{reason}"):
            return reason
    if not address.is_global:
        return "not_global"
    return None


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


def check_url(url: str) -> Target:
    """Parse, resolve and check; raises UnsafeTarget. Every resolved address must pass."""
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
    addresses = resolve(host, port)
    if not addresses:
        raise UnsafeTarget("unresolvable", host=host)
    for text in addresses:
        refusal = address_refusal(ipaddress.ip_address(text))
        if refusal is not None:
            raise UnsafeTarget("private_address", address=text, kind=refusal)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(scheme=parts.scheme, host=host, port=port, path=path, address=addresses[0], addresses=addresses)
