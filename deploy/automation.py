"""Create the automation that notifies people when a trainbudget gate blocks work.

Every gate decision of both flows emits `trainbudget.gate.<outcome>` with the gate, the
campaign and the reason. This automation reacts to the outcomes that need a person: a
deferred admission, a continuation stopped by a ceiling breach, a denied retry, a run judged
not worth it or ambiguous. It sends the message through a notification block you already
have (Slack webhook, e-mail, custom webhook, ...):

    prefect block register -m prefect.blocks.notifications   # once, on a fresh server
    # create the block in the UI (Blocks → +), e.g. a Slack webhook named "budget-team"
    PREFECT_API_URL=http://prefect:4200/api python deploy/automation.py slack-webhook/budget-team
"""

from __future__ import annotations

import argparse
from uuid import UUID

from prefect.automations import Automation
from prefect.blocks.core import Block
from prefect.events.actions import SendNotification
from prefect.events.schemas.automations import EventTrigger, Posture

NAME = "trainbudget: a gate needs attention"
# The outcomes that block or end work (gates/*.py outcome words).
ATTENTION = ("defer", "stop", "deny", "not-worth-it", "collect-more-data")
BODY = (
    "{{ event.resource['prefect.resource.name'] }}: {{ event.event }}\n"
    "{{ event.payload.sentence }}\n(reason code: {{ event.payload.reason }})"
)


def build_automation(block_document_id: UUID) -> Automation:
    """The automation: one notification per matching gate event, as soon as it arrives."""
    return Automation(
        name=NAME,
        description="Notify when a trainbudget gate defers, stops (ceiling breach) or denies.",
        trigger=EventTrigger(
            expect={f"trainbudget.gate.{outcome}" for outcome in ATTENTION},
            match={"prefect.resource.id": "trainbudget.campaign.*"},
            posture=Posture.Reactive,
            threshold=1,
            within=0,
        ),
        actions=[
            SendNotification(
                block_document_id=block_document_id,
                subject="trainbudget: {{ event.event }}",
                body=BODY,
            )
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("block", help="notification block slug, e.g. slack-webhook/budget-team")
    args = parser.parse_args()
    block = Block.load(args.block)
    created = build_automation(block._block_document_id).create()
    print(f"created automation {created.name!r} ({created.id})")


if __name__ == "__main__":
    main()
