"""The gate of new connections (backends/openai_api/connection_gate.py): a request starts on
a connection the server was shown to take, a new one is opened by a probe, a few probes at a
time, and a probe that shows nothing still lets one request go on its own.

The gate's rules are the subject here: its probe is a function of the test that answers when
the test says so. The gate on real connections to a fresh backlog-5 server is tested with
both request paths in tests/test_openai_transport.py."""

from __future__ import annotations

import asyncio

import pytest

from pytest_tom.backends.openai_api.connection_gate import ConnectionGate, kept_alive


class Probes:
    """A probe whose answers the test gives, one per probe, in order of the probes."""

    def __init__(self) -> None:
        self.pending: list[asyncio.Future[bool | None]] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(self) -> bool | None:
        fut: asyncio.Future[bool | None] = asyncio.get_running_loop().create_future()
        self.pending.append(fut)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await fut
        finally:
            self.in_flight -= 1

    def answer(self, *results: bool | Exception | None) -> None:
        for result in results:
            waiting = [f for f in self.pending if not f.done()]
            if isinstance(result, Exception):
                waiting[0].set_exception(result)
            else:
                waiting[0].set_result(result)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_requests_start_on_connections_shown_taken_a_few_probes_at_a_time() -> None:
    async def scenario() -> None:
        probes = Probes()
        gate = ConnectionGate(probes, at_once=4)
        started: list[int] = []

        async def request(i: int) -> None:
            await gate.enter()
            started.append(i)

        tasks = [asyncio.ensure_future(request(i)) for i in range(10)]
        await settle()
        assert started == [] and probes.in_flight == 4  # nothing starts unshown; 4 probes
        probes.answer(True)
        await settle()
        assert started == [0]  # one connection shown: the first request takes it
        assert probes.in_flight == 4  # ... and the next probe is on its way
        probes.answer(True, True, True)
        await settle()
        assert started == [0, 1, 2, 3]
        assert gate.open == 4 and gate.busy == 4
        gate.leave()  # request 0 ended: its connection is free for the next, no probe needed
        await settle()
        assert started == [0, 1, 2, 3, 4]
        while not all(t.done() for t in tasks):  # every probe answered as it comes
            probes.answer(*[True] * probes.in_flight)
            await settle()
        assert sorted(started) == list(range(10))
        assert probes.most_in_flight == 4
        assert gate.probes == 9  # one per connection made: 10 requests, one reused
        assert gate.unproven == 0
        for _ in range(9):  # the nine still under way end (request 0 did)
            gate.leave()
        assert gate.busy == 0 and gate.open == 9
        # with connections free, requests start at once, without a probe
        await asyncio.gather(*(request(i) for i in range(9)))
        assert gate.probes == 9

    asyncio.run(scenario())


@pytest.mark.parametrize("result", [None, False, RuntimeError("broken probe")],
                         ids=["no answer", "closed by the server", "a probe that raises"])
def test_a_probe_that_shows_no_kept_connection_lets_one_request_go_on_its_own(
        result: bool | Exception | None) -> None:
    """A server that is down, or closes every connection after its answer (http.server's 501
    to a GET it does not serve), is not waited for twice: each probe ends one wait. A request
    answered on its own connection, kept open, shows that connection taken: the requests
    after it use it without a probe."""

    async def scenario() -> None:
        probes = Probes()
        gate = ConnectionGate(probes, at_once=2)
        started: list[tuple[int, bool]] = []

        async def request(i: int) -> None:
            started.append((i, await gate.enter()))

        tasks = [asyncio.ensure_future(request(i)) for i in range(3)]
        await settle()
        assert probes.in_flight == 2
        probes.answer(result)
        await settle()
        assert started == [(0, True)] and gate.unproven == 1 and gate.open == 0
        assert probes.in_flight == 2  # one more for the request still waiting, none for 0
        probes.answer(result, result)
        await asyncio.gather(*tasks)
        assert started == [(0, True), (1, True), (2, True)] and gate.unproven == 3
        assert probes.in_flight == 0 and gate.probes == 3  # one per request, none to spare
        gate.leave(lost=False, own=True)  # answered on its own connection, kept open
        gate.leave(lost=True, own=True)  # this one's server closed it
        assert gate.open == 1 and gate.busy == 1 and gate.own == 1
        await request(3)
        assert started[-1] == (3, False) and gate.probes == 3  # no probe: a connection shown
        gate.leave(lost=False, own=True)
        assert gate.open == 2 and gate.busy == 1 and gate.own == 0

    asyncio.run(scenario())


def test_a_lost_connection_is_opened_again_and_a_cancelled_wait_leaves_nothing_behind() -> None:
    async def scenario() -> None:
        probes = Probes()
        gate = ConnectionGate(probes, at_once=4)
        first = asyncio.ensure_future(gate.enter())
        await settle()
        probes.answer(True)
        await first
        gate.leave(lost=True)  # broken, or closed by the server after its answer
        assert gate.open == 0 and gate.busy == 0
        second = asyncio.ensure_future(gate.enter())
        await settle()
        assert probes.in_flight == 1  # a new connection is needed: probed again
        second.cancel()
        await settle()
        assert gate.busy == 0
        probes.answer(True)  # the probe still makes its connection, free for the next
        await settle()
        assert gate.open == 1 and gate.busy == 0
        await gate.enter()
        assert gate.busy == 1 and gate.probes == 2

    asyncio.run(scenario())


def test_which_answers_keep_their_connection() -> None:
    assert kept_alive(True, None)
    assert kept_alive(True, "keep-alive")
    assert not kept_alive(True, "close")
    assert not kept_alive(True, "Upgrade, Close")
    assert not kept_alive(False, None)  # HTTP/1.0 closes unless told otherwise
    assert kept_alive(False, "Keep-Alive")


def test_a_connection_idle_too_long_is_probed_again_before_it_is_used() -> None:
    """Servers close an idle connection after a few seconds without telling the client,
    whose library then opens a new one unpaced: one idle longer than IDLE_TRUSTED is no
    longer counted, and the next request that would have taken it waits for a probe."""
    from pytest_tom.backends.openai_api.connection_gate import IDLE_TRUSTED

    now = [0.0]

    async def scenario() -> None:
        probes = Probes()
        gate = ConnectionGate(probes, at_once=4, clock=lambda: now[0])

        async def request() -> None:
            await gate.enter()

        first = [asyncio.ensure_future(request()) for _ in range(3)]
        await settle()
        probes.answer(True, True, True)
        await asyncio.gather(*first)
        assert gate.probes == 3 and gate.open == 3
        now[0] = 1.0
        gate.leave()  # idle since 1.0
        now[0] = 2.0
        gate.leave()
        gate.leave()  # two idle since 2.0
        now[0] = 2.0 + IDLE_TRUSTED - 0.01  # the first one is stale, the others are not
        await request()
        await request()
        assert gate.probes == 3 and gate.expired == 1 and gate.open == 2
        third = asyncio.ensure_future(request())  # no connection counted free: a probe
        await settle()
        assert not third.done() and probes.in_flight == 1 and gate.probes == 4
        probes.answer(True)  # the probe's answer shows one (a new one, or the kept one)
        await third
        assert gate.open == 3 and gate.busy == 3
        for _ in range(3):
            gate.leave()
        now[0] += 3 * IDLE_TRUSTED  # all three stale
        later = asyncio.ensure_future(request())
        await settle()
        assert gate.expired == 4 and gate.open == 0 and probes.in_flight == 1
        probes.answer(True)
        await later

    asyncio.run(scenario())
