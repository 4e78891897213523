"""The MCP server: four tools on the gateway's own path, and the catalog as resources.

Who asks is decided per call by `who` (the stdio key, or the HTTP Bearer header), so a
revoked key stops working at its next call. Every gateway call runs in a worker thread:
the store and the sandbox never block the event loop. A refusal is a tool error whose text
names its kind and reason, and whose structured content is the refusal's JSON: `kind`,
`error`, and `refusal` (the domain rule, as HTTP problems name it) when a use case refused.
A refusal is the gateway's own `GatewayError` all the way here, mapped once at each edge:
a tool's error result (`call_tool`), a resource's error (`_resource_refusal`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, UnexpectedToolError
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types import (
    CallToolResult,
    ElicitResult,
    InputRequiredResult,
    ListResourcesResult,
    PaginatedRequestParams,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import AnyUrl, BaseModel, Field

from application.principals import PrincipalView
from application.results import Proposal
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.facade import Gateway
from gateway.interfaces.mcp import confirmation, state_keys
from gateway.interfaces.mcp.shown import NO_CONSOLE, Sheets, ShownProposal

# Who asks, for one request; raises GatewayError("unauthenticated", ...) for a bad key.
PrincipalFor = Callable[[Context[Any, Any]], PrincipalView]
# The web console's address for one request, ending in "/"; None where it is not known
# (`sluice mcp` without SLUICE_CONSOLE_URL).
ConsoleFor = Callable[[Context[Any, Any]], str | None]
DIRECTORY_URI = "sluice://directory"
SHEET_PREFIX = "sluice://sheets/"
INSTRUCTIONS = (
    "Sluice runs business use cases behind a gateway. Read `directory`, fetch the sheets of "
    "the use cases you need with `find_actions`, then write ONE program that does the whole "
    "job and send it to `propose_program`. A read-only program completes at once. Nothing "
    "else is written until a person confirms the exact preview with their own key, in the "
    "web console (the server sends them its review page) or with `sluice confirm`; poll "
    "`proposal_status` for the outcome."
)
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
# Proposing records a proposal and may commit once a person confirms its preview: not
# read-only, not destructive by itself (the events only add to the log), not idempotent.
PROPOSES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
T = TypeVar("T")
logger = logging.getLogger(__name__)


class SluiceMCP(MCPServer):
    """MCPServer whose resources are the asking principal's directory and sheets."""

    def __init__(
        self,
        gateway: Gateway,
        who: PrincipalFor,
        console: ConsoleFor,
        *,
        elicit: bool = True,
        state_security: RequestStateSecurity | None = None,
    ) -> None:
        """`state_security` seals the confirmation's requestState (the keys of
        SLUICE_MCP_STATE_KEYS, `state_keys.request_state_security`); by default, with a
        random key of this process only."""
        super().__init__(
            name="sluice",
            title="Sluice",
            instructions=INSTRUCTIONS,
            version="0.1.0",
            log_level="WARNING",
            request_state_security=state_security or state_keys.request_state_security(),
        )
        # Just outside the SDK's sealing boundary, to explain the refusals it raises.
        boundary = next(
            i for i, m in enumerate(self.middleware) if isinstance(m, RequestStateBoundary)
        )
        self.middleware.insert(boundary, state_keys.ExplainRefusedState())
        self.gateway = gateway
        self.who = who
        self.console = console
        self.elicit = elicit
        self._add_tools()

    # Tools.

    def _add_tools(self) -> None:
        @self.tool(
            title="Directory of use cases",
            description="One line per use case this principal may call: name, kind, summary.",
            annotations=READ_ONLY,
        )
        async def directory(ctx: Context[Any, Any]) -> str:
            principal = await self._principal(ctx)
            return await self._gateway(self.gateway.directory, principal)

        @self.tool(
            title="Sheets of use cases",
            description=(
                "The full sheets of the named use cases: description, kind, parameters (JSON "
                "Schema) and result. Inside a program each is a function called by keyword."
            ),
            annotations=READ_ONLY,
        )
        async def find_actions(
            names: Annotated[list[str], Field(min_length=1, max_length=50)],
            ctx: Context[Any, Any],
        ) -> CallToolResult:
            principal = await self._principal(ctx)
            sheets = await self._gateway(self.gateway.sheets, principal, names)
            return _result(Sheets(sheets=sheets))

        @self.tool(
            title="Propose a program",
            description=(
                "Check a whole program (language python, or plan for a JSON plan) and preview "
                "every event it would append. A read-only program completes at once. A "
                "program that writes waits for a person: the server sends them the web "
                "console's review page (review_url) when the client supports URL "
                "elicitation, and they confirm it there with their own key, or with `sluice "
                "confirm`; the answer is the proposal as it then stands. A client the "
                "operator declared trusted asks a person's key with a form instead."
            ),
            annotations=PROPOSES,
        )
        async def propose_program(
            language: Literal["python", "plan"],
            source: Annotated[str, Field(min_length=1)],
            ctx: Context[Any, Any],
        ) -> CallToolResult | InputRequiredResult:
            return await self._propose(language, source, ctx)

        @self.tool(
            title="Proposal status",
            description="A proposal's status, preview and, once decided, its outcome.",
            annotations=READ_ONLY,
        )
        async def proposal_status(
            id: Annotated[str, Field(min_length=1, max_length=64)],
            ctx: Context[Any, Any],
        ) -> CallToolResult:
            principal = await self._principal(ctx)
            proposal = await self._gateway(self.gateway.proposal, principal, id)
            return _result(self._shown(proposal, ctx))

    async def _propose(
        self, language: str, source: str, ctx: Context[Any, Any]
    ) -> CallToolResult | InputRequiredResult:
        principal = await self._principal(ctx)
        by_result = confirmation.asks_by_result(ctx.protocol_version)
        if by_result and ctx.request_state is not None:
            # The second round: the answer to the question asked before.
            try:
                run_id, preview_hash, kind = confirmation.shown(ctx.request_state)
            except ValueError as error:
                raise GatewayError("bad-request", str(error)) from None
            if kind == "url":
                return await self._current(principal, run_id, ctx)
            answer = (ctx.input_responses or {}).get(confirmation.QUESTION)
            if answer is not None and not isinstance(answer, ElicitResult):
                raise GatewayError("bad-request", "the answer to the confirmation is not a form")
            return await self._settle(principal, run_id, preview_hash, answer, ctx)
        proposal = await self._gateway(self.gateway.propose, principal, language, source)
        asked = self._question(principal, proposal, ctx)
        if asked is None:
            return _result(self._shown(proposal, ctx))
        if by_result:
            return confirmation.input_required(asked, proposal, self._review_url(proposal, ctx))
        if asked == "url":
            return await self._send_to_console(principal, proposal, ctx)
        return await self._ask_now(principal, proposal, ctx)

    def _question(
        self, principal: PrincipalView, proposal: Proposal, ctx: Context[Any, Any]
    ) -> confirmation.Kind | None:
        """How to ask about a pending proposal: a form only where the policy lets its answer
        decide (`confirms_by_form`), else a link to the console; None: not at all."""
        capabilities = ctx.client_capabilities
        if proposal.status != "pending" or not self.elicit:
            return None
        if self.console(ctx) is None:  # no page to send the person to, so no link
            return (
                "form"
                if self.gateway.confirms_by_form(principal)
                and confirmation.can_ask("form", capabilities)
                else None
            )
        if self.gateway.confirms_by_form(principal) and confirmation.can_ask("form", capabilities):
            return "form"
        return "url" if confirmation.can_ask("url", capabilities) else None

    async def _send_to_console(
        self, principal: PrincipalView, proposal: Proposal, ctx: Context[Any, Any]
    ) -> CallToolResult:
        """Up to 2025-11-25: send the person the review page mid-call. Their client's answer
        says only whether it was opened, so it decides nothing: the tool reports the
        proposal as it stands once they are back (committed, if they confirmed)."""
        review_url = self._review_url(proposal, ctx)
        assert review_url is not None, "a link is sent only where there is a console"
        question = confirmation.link(proposal, review_url)
        await ctx.session.elicit_url(
            message=question.message,
            url=question.url,
            elicitation_id=question.elicitation_id,
            related_request_id=ctx.request_id,
        )
        return await self._current(principal, proposal.id, ctx)

    async def _current(
        self, principal: PrincipalView, run_id: str, ctx: Context[Any, Any]
    ) -> CallToolResult:
        proposal = await self._gateway(self.gateway.proposal, principal, run_id)
        return _result(self._shown(proposal, ctx))

    async def _ask_now(
        self, principal: PrincipalView, proposal: Proposal, ctx: Context[Any, Any]
    ) -> CallToolResult:
        """Up to 2025-11-25: ask mid-call; a stale preview is asked about again, fresh."""
        for _ in range(3):
            question = confirmation.form(proposal, self._review_url(proposal, ctx))
            answer = await ctx.session.elicit_form(
                message=question.message,
                requested_schema=question.requested_schema,
                related_request_id=ctx.request_id,
            )
            try:
                return await self._decide(
                    principal, proposal.id, proposal.preview_hash, answer, ctx
                )
            except _StaleError as stale:
                proposal = stale.proposal
        return _result(self._shown(proposal, ctx))

    async def _settle(
        self,
        principal: PrincipalView,
        run_id: str,
        preview_hash: str,
        answer: ElicitResult | None,
        ctx: Context[Any, Any],
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await self._decide(principal, run_id, preview_hash, answer, ctx)
        except _StaleError as stale:
            return confirmation.input_required(
                "form", stale.proposal, self._review_url(stale.proposal, ctx)
            )

    async def _decide(
        self,
        principal: PrincipalView,
        run_id: str,
        preview_hash: str,
        answer: ElicitResult | None,
        ctx: Context[Any, Any],
    ) -> CallToolResult:
        """Carry out the person's answer to a form: the facade's elicited decisions, whose
        policy says whether an answer to this client's form may decide."""
        decision = confirmation.accepted(answer)
        if decision is None:
            return await self._current(principal, run_id, ctx)
        if decision is False:
            rejected = await self._gateway(self.gateway.reject_elicited, principal, run_id)
            return _result(self._shown(rejected, ctx))
        try:
            await anyio.to_thread.run_sync(
                lambda: self.gateway.confirm_elicited(principal, run_id, preview_hash)
            )
        except StaleProposalError as stale:
            if stale.fresh is None:
                raise
            raise _StaleError(stale.fresh) from None
        proposal = await self._gateway(self.gateway.proposal, principal, run_id)
        return _result(self._shown(proposal, ctx))

    def _shown(self, proposal: Proposal, ctx: Context[Any, Any]) -> ShownProposal:
        """The proposal, where a person reviews it, and what comes next."""
        next_step = None
        review_url = self._review_url(proposal, ctx)
        if proposal.status == "pending":
            where = "in the web console (review_url) or " if review_url else ""
            next_step = (
                f"Nothing is written yet. A person confirms this exact preview {where}with "
                f"`sluice confirm {proposal.id[:8]}`; poll proposal_status for the outcome."
            )
            if review_url is None:
                next_step += " " + NO_CONSOLE
        return ShownProposal.of(proposal, review_url, next_step)

    def _review_url(self, proposal: Proposal, ctx: Context[Any, Any]) -> str | None:
        console = self.console(ctx)
        return None if console is None else f"{console}#/proposals/{proposal.id}"

    async def _principal(self, ctx: Context[Any, Any]) -> PrincipalView:
        return await self._gateway(self.who, ctx)

    @staticmethod
    async def _gateway(call: Callable[..., T], *args: Any) -> T:
        """Run one gateway call off the event loop; a refusal goes on as it is."""
        return await anyio.to_thread.run_sync(lambda: call(*args))

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """The SDK's, but a gateway refusal is an error result naming its kind and reason
        after the SDK's `Error executing tool <name>`, with its JSON as structured content
        (the SDK takes any exception but its own for a crash, and shows nothing of it)."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as failed:
            refused = failed.__cause__
            if not isinstance(refused, GatewayError):
                raise
            said = f"{failed}: {_message(refused)}"
            logger.info("Tool %r failed: %r", name, said)
            return CallToolResult(
                content=[TextContent(type="text", text=said)],
                structured_content=refused.to_json(),
                is_error=True,
            )

    # Resources: the asking principal's directory and sheets.

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        with _resource_refusal():
            principal = await self._principal(Context(request_context=ctx, mcp_server=self))
        allowed = self.gateway.catalog_for(principal).names
        resources = [
            Resource(
                uri=DIRECTORY_URI,
                name="directory",
                title="Directory of use cases",
                description=f"The use cases {principal.name} may call, one line each.",
                mime_type="text/plain",
            )
        ]
        resources += [
            Resource(
                uri=SHEET_PREFIX + name,
                name=f"sheet {name}",
                title=f"Sheet of {name}",
                description=self.gateway.catalog.get(name).summary(),
                mime_type="application/json",
            )
            for name in allowed
        ]
        return ListResourcesResult(resources=resources)

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        address = str(uri)
        if context is None or not address.startswith("sluice://"):
            return await super().read_resource(uri, context)
        with _resource_refusal():
            principal = await anyio.to_thread.run_sync(lambda: self.who(context))
            if address == DIRECTORY_URI:
                text = self.gateway.directory(principal)
                return [ReadResourceContents(content=text, mime_type="text/plain")]
            if address.startswith(SHEET_PREFIX):
                sheets = self.gateway.sheets(principal, [address.removeprefix(SHEET_PREFIX)])
                sheet = sheets[0].model_dump(mode="json")
                text = json.dumps(sheet, indent=2, ensure_ascii=False)
                return [ReadResourceContents(content=text, mime_type="application/json")]
        raise ResourceError(f"not-found: no resource {address}")


class _StaleError(Exception):
    """The accounts moved since the preview: nothing was written; here is a fresh one."""

    def __init__(self, proposal: Proposal) -> None:
        super().__init__("stale preview")
        self.proposal = proposal


def _message(error: GatewayError) -> str:
    return f"{error.kind}: {error}"


@contextmanager
def _resource_refusal() -> Iterator[None]:
    """A refusal while listing or reading a resource: an error naming its kind and reason."""
    try:
        yield
    except GatewayError as error:
        raise ResourceError(_message(error)) from None


def _result(answer: BaseModel) -> CallToolResult:
    """Structured content for programs, the same JSON as text for models that read text."""
    body = answer.model_dump(mode="json")
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=body)
