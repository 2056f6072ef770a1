"""Who sits at which side of a game: players known by a cookie, seats held by players,
invitations that hand a seat to the person who opens them.

A player is a browser (or any client): the table gives it an unguessable id in an
HttpOnly, SameSite=Strict cookie on its first request, and knows it by that id
from then on. Knowing a game's id is not enough to see or play it: every
request that reads or acts for a side must come from the player who holds that
side's seat. A seat is taken by creating the game (the sides the creator plays),
or by opening an invitation — a second unguessable token, carried in a link's
fragment (never sent to a server's logs), spent when used. A save records a
fingerprint of its player, never the id itself.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field

PLAYER_COOKIE = "muster_player"
# A year: the cookie is what makes a player's saves theirs after the table restarts.
PLAYER_MAX_AGE = 365 * 24 * 3600
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")  # secrets.token_urlsafe(32)


def new_token() -> str:
    """An unguessable token (256 bits), for a player's id or an invitation."""
    return secrets.token_urlsafe(32)


def well_formed(token: object) -> bool:
    """Whether a token could have been made by `new_token` (anything else is no token)."""
    return isinstance(token, str) and _TOKEN.match(token) is not None


def fingerprint(player: str) -> str:
    """What a save keeps of its player: enough to recognise them, not to be them."""
    return hashlib.sha256(b"muster player " + player.encode()).hexdigest()


class SeatRefused(Exception):
    """A request for a seat its player does not hold, or an invitation that is no good."""


@dataclass
class Seats:
    """The seats of one game: who holds each side, and the invitations not yet opened."""

    holders: dict[int, str] = field(default_factory=dict)  # side → player id
    invitations: dict[str, frozenset[int]] = field(default_factory=dict)  # token → sides

    def grant(self, player: str, sides: frozenset[int]) -> None:
        for side in sides:
            self.holders[side] = player

    def invite(self, sides: frozenset[int]) -> str:
        """A new invitation to the seats of `sides` (one token for all of them)."""
        token = new_token()
        self.invitations[token] = sides
        return token

    def join(self, token: object, player: str) -> frozenset[int]:
        """Open an invitation: its seats are the player's, and it is spent."""
        sides = self.invitations.pop(token, None) if well_formed(token) else None
        if sides is None:
            raise SeatRefused("this invitation is not valid (it may have been used already)")
        self.grant(player, sides)
        return sides

    def held_by(self, player: str | None) -> frozenset[int]:
        if player is None:
            return frozenset()
        return frozenset(s for s, p in self.holders.items() if secrets.compare_digest(p, player))

    def pending(self) -> dict[int, str]:
        """Each side still waiting for its person, with its invitation."""
        return {side: token for token, sides in self.invitations.items() for side in sides}

    def shared(self) -> bool:
        """Whether another person plays (or is invited to play) a side of this game:
        then neither may see or undo what the other has seen happen."""
        return bool(self.invitations) or len(set(self.holders.values())) > 1
