"""Process recorder: new events and the tracking record of their cause, in one transaction."""

from __future__ import annotations

from eventsourcing.persistence import ProcessRecorder

from infrastructure.postgres.application_recorder import AsyncpgApplicationRecorder
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.tracking_recorder import AsyncpgTrackingRecorder


class AsyncpgProcessRecorder(AsyncpgTrackingRecorder, AsyncpgApplicationRecorder, ProcessRecorder):
    def __init__(
        self,
        datastore: AsyncpgDatastore,
        *,
        events_table_name: str = "stored_events",
        tracking_table_name: str = "notification_tracking",
    ) -> None:
        super().__init__(
            datastore,
            tracking_table_name=tracking_table_name,
            events_table_name=events_table_name,
        )

    def _tracking_table_for_inserts(self) -> str | None:
        # The insert function then records `tracking=` in the same transaction.
        return self.tracking_table_name
