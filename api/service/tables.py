"""The use cases of a table: load its stream, let the engine decide, append.

The only layer that knows about transactions. A command runs one of two ways:

- at once, when this node holds the table's state, its version map vouches
  that the state is current, and the table has no webhook (so there is no
  notification to queue): decide on that state, let the bots answer, and
  append by one compare-and-set on the version (`Store.append_if_current`),
  no lock held, one statement;
- otherwise (and whenever that compare-and-set loses, or the node's state
  refuses the command) in one unit of work holding the table's row lock: load
  (from the state cache plus any newer events), decide, let the bots answer,
  append, plan notifications, commit. Commands under an Idempotency-Key always
  go this way: their answer is written in the same transaction.

Either way the stream version is the concurrency token, and the events are
applied once. Reads never take the lock.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from ..config import Settings
from ..engine import Context, TableState, Viewer, decide, evolve, table_view
from ..engine.bots import bot_command, seats_to_act, thinking_seats
from ..engine.bots.view import bot_view
from ..engine.errors import NotYourTurn, RuleViolation
from ..engine.hints import Hint
from ..engine.commands import (
    Abandon,
    Accuse,
    ChangePreferences,
    ChooseMoon,
    ChoosePass,
    Command,
    CreateTable,
    Join,
    PlayCard,
    Rematch,
    Resign,
    SeatBots,
)
from ..engine.decide import Decision, play_on
from ..engine.events import Event, RevokeAccused
from ..engine.redaction import visible_event
from ..engine.views import invitation_view
from ..engine.state import Options
from ..store import codec
from ..store.ports import Credential, Store, Unavailable, UnitOfWork, Webhook
from . import credentials, idempotency, metrics, notify, webhooks
from .bots_worker import Thinker
from .clock import Clock, SystemClock
from .errors import Forbidden, HintsDisabled, NotFound, StaleVersion, Unauthenticated, UnknownToken
from .versions import Hangup, TableVersions
from .views_cache import ViewsCache

Precondition = Callable[[int], bool]
COMMAND_ATTEMPTS = 3


@dataclass(frozen=True)
class Access:
    """An authenticated caller: a token of `table_id`, seen as `viewer`."""

    table_id: str
    viewer: Viewer
    token_hash: str


@dataclass(frozen=True)
class Admission:
    """What creating or joining a table hands back once: the token."""

    table_id: str
    role: str
    seat: int | None
    spectator: int | None
    token: str
    invite_code: str | None = None


@dataclass(frozen=True)
class Outcome:
    """The state after a command, and what the command itself decided."""

    state: TableState
    events: tuple[Event, ...]


K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


class StateCache:
    """Recent table states by id, so a command replays only the newest events.

    The database stays the truth: a cached state is used only up to the
    version the table row shows, and is put back only after a commit.
    """

    def __init__(self, size: int = 512) -> None:
        self._states: LruCache[str, TableState] = LruCache(size)
        self._lock = threading.Lock()

    def get(self, table_id: str) -> TableState | None:
        return self._states.get(table_id)

    def put(self, table_id: str, state: TableState) -> None:
        with self._lock:  # never replace a newer state with an older one
            current = self._states.get(table_id)
            if current is None or current.version <= state.version:
                self._states.put(table_id, state)


class TableService:
    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        thinker: Thinker | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.clock = clock or SystemClock()
        self.rng = rng or secrets.SystemRandom()
        self.cache = StateCache()
        self.versions = TableVersions(store)
        self.views = ViewsCache()
        # A credential never changes once issued, so a hit needs no query.
        self.known_credentials: LruCache[str, Credential] = LruCache(4096)
        # Seats with a webhook per table, as its row showed when last locked here: a table
        # with some is not tried without the lock (its commands queue notifications).
        self.webhook_counts: LruCache[str, int] = LruCache(4096)
        # The strong bot's search, in other processes: hints and strong bots' moves.
        self.thinker = thinker or Thinker()
        # A hint is computed once per (table, version, seat): asking again gives the same answer.
        self.hints: LruCache[tuple[str, int, int], Hint] = LruCache(1024)

    # -- entering a table ------------------------------------------------------

    def create_table(self, name: str, options: Options) -> Admission:
        table_id = credentials.new_table_id()
        invite_code = credentials.new_invite_code()
        token = credentials.new_token()
        now = self.clock.now()
        with self.store.unit_of_work() as uow:
            uow.create_table(table_id, credentials.digest(invite_code), now)
            outcome = self._decide(uow, table_id, TableState(), CreateTable(name, options))
            uow.add_credential(Credential(credentials.digest(token), table_id, "player", 0, None, now))
            uow.commit()
        self._committed(table_id, outcome.state)
        return Admission(table_id, "player", 0, None, token, invite_code)

    def join(self, invite_code: str, name: str) -> Admission:
        token = credentials.new_token()
        with self.store.unit_of_work() as uow:
            row = uow.table_by_invite(credentials.digest(invite_code), lock=True)
            if row is None:
                raise NotFound("no table has this invite code")
            state = self._load(uow, row.table_id, lock=True)
            outcome = self._decide(uow, row.table_id, state, Join(name))
            seated = outcome.events[0]
            seat = getattr(seated, "seat", None)
            spectator = getattr(seated, "spectator", None)
            role = "player" if seat is not None else "spectator"
            now = self.clock.now()
            uow.add_credential(Credential(credentials.digest(token), row.table_id, role, seat, spectator, now))
            uow.commit()
        self._committed(row.table_id, outcome.state)
        return Admission(row.table_id, role, seat, spectator, token)

    def invitation(self, invite_code: str) -> dict[str, Any]:
        """The public face of the table behind an invite code (no token needed: the code is the key)."""
        with self.store.unit_of_work(readonly=True) as uow:
            row = uow.table_by_invite(credentials.digest(invite_code))
            if row is None:
                raise NotFound("no table has this invite code")
            state = self._load(uow, row.table_id)
        self.cache.put(row.table_id, state)
        return {"table_id": row.table_id, **invitation_view(state)}

    def authenticate(self, table_id: str, token: str | None) -> Access:
        if not token:
            raise Unauthenticated("send 'Authorization: Bearer <token>' with a token of this table")
        token_hash = credentials.digest(token)
        credential = self.credential(token_hash)
        if credential is None:
            raise UnknownToken("this token is unknown")
        if credential.table_id != table_id:
            raise NotFound("no such table")
        return Access(table_id, Viewer(credential.seat, credential.spectator), token_hash)

    def credential(self, token_hash: str) -> Credential | None:
        """The credential issued with this token hash, or None (cached: a credential never changes)."""
        credential = self.known_credentials.get(token_hash)
        if credential is None:
            with self.store.unit_of_work(readonly=True) as uow:
                credential = uow.credential(token_hash)
            if credential is not None:
                self.known_credentials.put(token_hash, credential)
        return credential

    # -- reading -----------------------------------------------------------------

    def version(self, table_id: str) -> int:
        """The table's current version: from the node's version map when it knows
        it, else one indexed read; never a replay."""
        return self.versions.current(table_id, lambda: self._stored_version(table_id))

    def wait_for_change(self, table_id: str, version: int, timeout: float, hangup: Hangup | None = None, kind: str = "long_poll") -> int:
        """The version once it differs from `version`, or after `timeout` s (or a hang-up) the version then."""
        with metrics.waiting(kind):
            return self.versions.wait(table_id, version, timeout, lambda: self._stored_version(table_id), hangup)

    def _stored_version(self, table_id: str) -> int:
        with self.store.unit_of_work(readonly=True) as uow:
            row = uow.table_row(table_id)
        if row is None:
            raise NotFound("no such table")
        return row.version

    def state(self, table_id: str, version: int | None = None) -> TableState:
        """The table's state; at `version` straight from the cache when it holds that one."""
        if version is not None:
            cached = self.cache.get(table_id)
            if cached is not None and cached.version == version:
                return cached
        with self.store.unit_of_work(readonly=True) as uow:
            state = self._load(uow, table_id)
        self.cache.put(table_id, state)
        return state

    def view(self, access: Access, state: TableState | None = None) -> dict[str, Any]:
        state = state if state is not None else self.state(access.table_id)
        return {"table_id": access.table_id, **table_view(state, access.viewer)}

    def view_json(self, access: Access, version: int) -> tuple[int, bytes]:
        """This viewer's view as JSON bytes, from the rendered views when they hold
        `version`; else of the state then (at `version` or newer): (version, bytes)."""
        hit = self.views.cached(access.table_id, access.viewer, version)
        if hit is not None:
            return version, hit
        state = self.state(access.table_id, version)
        return state.version, self.views.put(access.table_id, access.viewer, state.version, self.view(access, state))

    def events(self, access: Access, after: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """A page of the event log as this viewer may see it, and `next_after`."""
        with self.store.unit_of_work(readonly=True) as uow:
            state = self._load(uow, access.table_id)
            page = uow.load_events(access.table_id, after=after, limit=limit)
        items = []
        for stored in page:
            recorded = visible_event(state, codec.decode(stored), access.viewer)
            items.append(
                {
                    "seq": recorded.seq,
                    "type": stored.type,
                    "at": recorded.at,
                    "seat": stored.seat,
                    "data": codec.event_data(recorded.event),
                }
            )
        return items, (page[-1].seq if page else after)

    def hint(self, access: Access) -> Hint:
        """The move the strong bot would make for this seat now, and why; no lock is held while it thinks."""
        seat = access.viewer.seat
        if seat is None:
            raise Forbidden("hints are for the seated players")
        state = self.state(access.table_id)
        if not state.options.hints:
            raise HintsDisabled()
        view = bot_view(state, seat)
        if view is None:
            raise NotYourTurn("this seat has nothing to do now")
        key = (access.table_id, state.version, seat)
        hint = self.hints.get(key)
        if hint is None:
            hint = self.thinker.hint(view, self.rng.getrandbits(64))
            self.hints.put(key, hint)
        return hint

    # -- strong bots (played by api.service.bots_worker) --------------------------------

    def tables_awaiting_bots(self, limit: int) -> list[str]:
        with self.store.unit_of_work(readonly=True) as uow:
            return uow.tables_awaiting_bots(limit)

    def clear_bots_due(self, table_id: str, version: int) -> None:
        with self.store.unit_of_work() as uow:
            uow.clear_bots_due(table_id, version)
            uow.commit()

    # -- moves and table life -------------------------------------------------------

    def seat_bots(self, access: Access, seats: tuple[int, ...], level: str, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: SeatBots(seat, seats, level), precondition)

    def choose_pass(self, access: Access, cards: tuple[str, ...], precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: ChoosePass(seat, cards), precondition)

    def play(self, access: Access, card: str, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: PlayCard(seat, card), precondition)

    def accuse(self, access: Access, accused: int, precondition: Precondition | None = None) -> tuple[Outcome, RevokeAccused]:
        outcome = self._player_command(access, lambda seat: Accuse(seat, accused), precondition)
        accusation = next(event for event in outcome.events if isinstance(event, RevokeAccused))
        return outcome, accusation

    def choose_moon(self, access: Access, choice: str, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: ChooseMoon(seat, choice), precondition)

    def resign(self, access: Access, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: Resign(seat), precondition)

    def abandon(self, access: Access, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: Abandon(seat), precondition)

    def rematch(self, access: Access, precondition: Precondition | None = None) -> Outcome:
        return self._player_command(access, lambda seat: Rematch(seat), precondition)

    def change_preferences(self, access: Access, changes: dict[str, Any]) -> tuple[Outcome, str | None]:
        """Name and deck design are events; the webhook is kept beside the stream (it holds a secret)."""
        set_webhook, secret = self._webhook_change(access, changes["webhook_url"]) if "webhook_url" in changes else (None, None)
        name, deck_design = changes.get("name"), changes.get("deck_design")
        if name is None and deck_design is None:
            with self.store.unit_of_work() as uow:
                state = self._load(uow, access.table_id, lock=True)
                if set_webhook is not None:
                    set_webhook(uow, state)
                uow.commit()
            return Outcome(state, ()), secret
        command = ChangePreferences(access.viewer.seat, access.viewer.spectator, name, deck_design)
        return self.execute(access.table_id, command, extra=set_webhook), secret

    def _webhook_change(self, access: Access, url: str | None) -> tuple[Callable[[UnitOfWork, TableState], None], str | None]:
        """Set (with a new secret, returned once) or remove a seat's webhook, in the command's transaction."""
        seat = access.viewer.seat
        if seat is None:
            raise Forbidden("webhooks notify seated players")
        hook, secret = None, None
        if url is not None:
            webhooks.check_url(url, self.settings.webhook_allowed_hosts)
            secret = webhooks.new_secret()
            hook = Webhook(access.table_id, seat, url, secret, False)

        def set_webhook(uow: UnitOfWork, state: TableState) -> None:
            uow.set_webhook(hook, table_id=access.table_id, seat=seat)
            if hook is not None:
                # A seat already awaited (e.g. the last joiner, dealt in at once) hears of it now.
                notify.enqueue(uow, access.table_id, notify.due_now(access.table_id, state, seat), self.clock.now())

        return set_webhook, secret

    def _player_command(self, access: Access, build: Callable[[int], Command], precondition: Precondition | None) -> Outcome:
        seat = access.viewer.seat
        if seat is None:
            raise Forbidden("spectators watch; only seated players act")
        return self.execute(access.table_id, build(seat), precondition)

    def execute(self, table_id: str, command: Command, precondition: Precondition | None = None, extra: Callable[[UnitOfWork, TableState], None] | None = None) -> Outcome:
        """Run one command for a table in one transaction, bots' answers included.

        Under an Idempotency-Key (`idempotency.current()`) the key is looked up
        once the table is locked, and the transaction commits later, with the
        answer written beside the events (see api.service.idempotency).
        A serialization failure or deadlock (the database undid the whole
        transaction) runs the command again, up to COMMAND_ATTEMPTS times.
        """
        attempts = 1
        while True:
            try:
                return self._execute_once(table_id, command, precondition, extra)
            except Unavailable as error:
                if not error.retry_safe or attempts >= COMMAND_ATTEMPTS:
                    raise
                attempts += 1

    def _execute_once(self, table_id: str, command: Command, precondition: Precondition | None, extra: Callable[[UnitOfWork, TableState], None] | None) -> Outcome:
        keyed = idempotency.current()
        if keyed is None and extra is None:
            outcome = self._execute_unlocked(table_id, command, precondition)
            if outcome is not None:
                return outcome
        with self._command_unit(keyed) as uow:
            state = self._load(uow, table_id, lock=True)
            if keyed is not None:
                keyed.check(uow)
            if precondition is not None and not precondition(state.version):
                raise StaleVersion(f"the table is at version {state.version}")
            outcome = self._decide(uow, table_id, state, command)
            if extra is not None:
                extra(uow, outcome.state)
            if keyed is not None:
                keyed.defer_commit(lambda: self._committed(table_id, outcome.state))
                return outcome
            uow.commit()
        self._committed(table_id, outcome.state)
        return outcome

    def _execute_unlocked(self, table_id: str, command: Command, precondition: Precondition | None) -> Outcome | None:
        """The command on this node's state of the table, appended by one compare-and-set
        with no lock held; None, with nothing written, when it cannot be done so: the
        state is not known to be current, the table has webhooks, the node's state
        refuses the command (the refusal is decided again under the lock, on the
        stored state), or the table moved on meanwhile."""
        state = self.cache.get(table_id)
        if state is None or self.versions.known(table_id) != state.version or self.webhook_counts.get(table_id):
            return None
        if precondition is not None and not precondition(state.version):
            return None
        now = self.clock.now()
        try:
            decision, played = self._play(state, command, now)
        except RuleViolation:
            return None
        if self._append(self.store.append_if_current, table_id, state, played, now) is None:
            return None
        self._committed(table_id, played.state)
        return Outcome(played.state, decision.events)

    @contextmanager
    def _command_unit(self, keyed: idempotency.Recording | None) -> Iterator[UnitOfWork]:
        """A command's unit of work: closed here, or (keyed) kept open for its answer."""
        if keyed is None:
            with self.store.unit_of_work() as uow:
                yield uow
            return
        try:
            yield keyed.unit_of_work(self.store)
        except BaseException as error:
            keyed.discard(error)  # nothing to answer from: roll back and release the lock now
            raise

    def _committed(self, table_id: str, state: TableState) -> None:
        """After a commit: the state for the next command, the version for the next read."""
        self.cache.put(table_id, state)
        self.versions.committed(table_id, state.version)

    # -- inside a unit of work ------------------------------------------------------

    def _load(self, uow: UnitOfWork, table_id: str, *, lock: bool = False) -> TableState:
        row = uow.lock_table(table_id) if lock else uow.table_row(table_id)
        if row is None:
            raise NotFound("no such table")
        if lock:
            self.webhook_counts.put(table_id, row.webhook_count)
        cached = self.cache.get(table_id)
        state = cached if cached is not None and cached.version <= row.version else TableState()
        if state.version < row.version:
            for stored in uow.load_events(table_id, after=state.version):
                state = evolve(state, codec.decode(stored))
        return state

    def _decide(self, uow: UnitOfWork, table_id: str, state: TableState, command: Command) -> Outcome:
        now = self.clock.now()
        decision, played = self._play(state, command, now)
        self._append(uow.append, table_id, state, played, now)
        notify.enqueue(uow, table_id, notify.plan(table_id, state, played.state), now)
        return Outcome(played.state, decision.events)

    @staticmethod
    def _append(append: Callable[..., Any], table_id: str, state: TableState, played: Decision, now: datetime) -> Any:
        """Write what `played` did after `state` with `append`: a unit of work's, or the
        store's compare-and-set (`append_if_current`); its answer."""
        after = played.state
        events = [codec.encode(event) for event in played]
        return append(table_id, state.version, events, status=after.status.value, now=now, bots_due=bool(thinking_seats(after)))

    def _play(self, state: TableState, command: Command, now: datetime) -> tuple[Decision, Decision]:
        """The command's own decision, and the same followed by the inline bots' answers."""
        context = Context(now, self.rng, self.settings.stall_seconds)
        decision = decide(state, command, context)
        # Basic bots act at once when it is their turn, seeing only their own seat's view;
        # strong bots think apart, off the lock (the row's bots_due flag calls the worker).
        return decision, play_on(decision, context, self._bot_answer)

    def _bot_answer(self, state: TableState, seat: int) -> Command | None:
        """An inline bot's answer, decided from its own view only; None for a human or a bot that thinks apart."""
        if seat not in seats_to_act(state, inline_only=True):
            return None
        return bot_command(state, seat, self.rng)

    # -- the audit (appended) -----------------------------------------------------------

    def audit(self, access: Access) -> dict[str, Any]:
        """The replayed record of every match and round, as this viewer may see it now."""
        from ..engine.audit import audit_record

        state = self.state(access.table_id)
        return {"table_id": access.table_id, **audit_record(state, access.viewer)}
