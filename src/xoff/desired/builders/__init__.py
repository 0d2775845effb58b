"""One builder per piece of device state; each is a pure function of (facts, device)."""
