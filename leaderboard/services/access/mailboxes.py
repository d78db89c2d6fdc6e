"""The mailbox an e-mail address delivers to: one key for every per-address rule.

``me+1@x.org`` and ``me+2@x.org`` reach one inbox, so one person could verify any number of
teams with them. :func:`mailbox_key` maps the addresses of one inbox to
one key; the site keeps one account per key (``user.mailbox``), keys the per-e-mail rate
limits by it, and the Ladder counts one first result per verified key.

What is folded, and why it is safe:

- **Case**, in the domain (DNS names are case-insensitive) and in the local part (the site
  has always lower-cased whole addresses; no common provider tells ``Me`` from ``me``).
- **A ``+tag``** in the local part: sub-addressing (RFC 5233) at Gmail, Outlook, iCloud,
  Fastmail, Proton and most self-hosted servers. A server that treats ``+`` as an ordinary
  character could host two people at ``a+b@`` and ``a+c@``; the second of them asks the
  hosts for an account (``leaderboard team create`` refuses it too: one mailbox, one
  account).
- **The domain's trailing dot and its Unicode form**: ``x.org.`` is ``x.org``, and an
  internationalised domain is compared in its ASCII (IDNA) form.
- **Dots at Gmail** (``gmail.com``, and ``googlemail.com``, its other name): Google delivers
  ``j.doe@`` and ``jdoe@`` to one inbox and says so; elsewhere dots are kept, as at Outlook
  ``j.doe`` and ``jdoe`` are two people.

Not folded: other providers' separators (Yahoo's ``-`` base names; ``-`` is common in real
names), and a domain with a catch-all inbox, whose owner has as many mailboxes as names.
"""

from __future__ import annotations

import unicodedata

#: Domains that ignore dots in the local part, and the name they are compared under.
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def _domain_key(domain: str) -> str:
    domain = unicodedata.normalize("NFKC", domain).lower().rstrip(".")
    if domain.isascii():
        return domain
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:  # not a valid internationalised name: compare it as typed
        return domain


def mailbox_key(address: str) -> str:
    """The canonical mailbox of ``address`` (see the module's docstring), for comparison
    only: mail still goes to the address as typed. Without an ``@`` the trimmed, lower-cased
    text is its own key."""
    address = address.strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local:
        return address
    domain = _domain_key(domain)
    base = local.split("+", 1)[0]
    local = base or local  # "+tag@x.org" has nothing before the tag: keep it whole
    domain = DOTLESS_DOMAINS.get(domain, domain)
    if domain == "gmail.com":
        local = local.replace(".", "") or local
    return f"{local}@{domain}"
