"""Push: take every targeted device from its running state to the rendered desired state, safely."""
