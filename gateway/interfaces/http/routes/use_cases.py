"""Direct calls: the principal's own client, no preview, the same permissions and caps."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Path, Query
from starlette.concurrency import run_in_threadpool

from gateway.interfaces.http.deps import GatewayDep, PrincipalDep
from gateway.interfaces.http.idempotency import idempotent, request_hash
from gateway.interfaces.http.schemas import PROBLEMS, Outcome

router = APIRouter(prefix="/v1", tags=["use cases"], responses=PROBLEMS)


@router.post("/use-cases/{name}", response_model=Outcome, operation_id="call_use_case")
async def call_use_case(
    gateway: GatewayDep,
    principal: PrincipalDep,
    name: Annotated[str, Path(description="A use case, e.g. transfer.", max_length=64)],
    arguments: Annotated[
        dict[str, Any],
        Body(
            description="The use case's arguments, as its sheet describes them.",
            examples=[{"payer": "alice", "payee": "bob", "amount": 10, "memo": "lunch"}],
        ),
    ],
    idempotency_key: Annotated[
        str | None,
        Header(description="Replay the first answer for the same key and body.", max_length=255),
    ] = None,
    consistent: Annotated[
        bool, Query(description="For a read: wait until the read model has every commit.")
    ] = False,
) -> Any:
    """Call a use case now; the result and the events appended come back.

    A read is answered from the read models, which may lag the log unless `consistent`."""

    def answer() -> Any:
        # Before any idempotent replay: refusals do not depend on what was answered before.
        gateway.check_direct(principal, name)
        fingerprint = request_hash(f"/v1/use-cases/{name}", arguments)
        return idempotent(
            gateway,
            principal,
            idempotency_key,
            fingerprint,
            lambda record: gateway.call(
                principal, name, arguments, record=record, consistent=consistent
            ),
        )

    # One hand-over to the thread pool (see `gateway.interfaces.http.deps`).
    return await run_in_threadpool(answer)
