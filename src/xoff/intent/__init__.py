"""The intent: what people write about their GPU cluster's networks, loaded strictly."""

from xoff.intent.document import IntentDocument
from xoff.intent.load import load_intent
from xoff.intent.resolved import Host, IbSwitch, Intent, Link, Nic, Port, Switch

__all__ = ["Host", "IbSwitch", "Intent", "IntentDocument", "Link", "Nic", "Port", "Switch", "load_intent"]
