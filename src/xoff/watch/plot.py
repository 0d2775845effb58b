"""A finding's time series as inline SVG (no JS library): one small chart per series, the threshold drawn dashed.

Written with ElementTree, which escapes every text (device and port names come from the devices)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from xoff.watch.judge import Trace

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 520, 130, 64, 12, 18, 22
_COLOURS = ("#0969da", "#8250df", "#1a7f37", "#bc4c00")


def _fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1e4 else f"{value:.3e}"


class _Scale:
    def __init__(self, trace: Trace) -> None:
        times = [t for t, _ in trace.points] or [0.0]
        values = [v for _, v in trace.points] + [b for b in (trace.threshold, trace.low) if b is not None]
        self.t0, self.t1 = min(times), max(times)
        self.lo, self.hi = min(values, default=0.0), max(values, default=1.0)
        if self.hi == self.lo:
            self.lo, self.hi = self.lo - 1.0, self.hi + 1.0

    def x(self, t: float) -> float:
        span = self.t1 - self.t0 or 1.0
        return round(PAD_L + (t - self.t0) / span * (W - PAD_L - PAD_R), 1)

    def y(self, v: float) -> float:
        return round(H - PAD_B - (v - self.lo) / (self.hi - self.lo) * (H - PAD_T - PAD_B), 1)


def _text(parent: ET.Element, x: float, y: float, text: str, anchor: str = "start", fill: str = "#57606a") -> None:
    attrs = {"x": str(x), "y": str(y), "font-size": "10", "text-anchor": anchor, "fill": fill}
    ET.SubElement(parent, "text", attrs).text = text


def _bound(svg: ET.Element, s: _Scale, value: float, name: str) -> None:
    y = str(s.y(value))
    line = {"x1": str(PAD_L), "x2": str(W - PAD_R), "y1": y, "y2": y, "stroke": "#cf222e", "stroke-dasharray": "5 3"}
    ET.SubElement(svg, "line", line | {"class": "threshold"})
    _text(svg, W - PAD_R, s.y(value) - 3, f"{name} {_fmt(value)}", "end", "#cf222e")


def chart(trace: Trace, colour: str = _COLOURS[0]) -> ET.Element:
    s = _Scale(trace)
    svg = ET.Element("svg", {"width": str(W), "height": str(H), "viewBox": f"0 0 {W} {H}", "role": "img"})
    svg.set("aria-label", f"{trace.label} ({trace.unit})")
    ET.SubElement(svg, "title").text = f"{trace.label} ({trace.unit})"
    axis = {"stroke": "#8c959f", "stroke-width": "1"}
    ET.SubElement(svg, "line", {"x1": str(PAD_L), "x2": str(PAD_L), "y1": str(PAD_T), "y2": str(H - PAD_B)} | axis)
    ET.SubElement(
        svg, "line", {"x1": str(PAD_L), "x2": str(W - PAD_R), "y1": str(H - PAD_B), "y2": str(H - PAD_B)} | axis
    )
    _text(svg, PAD_L, 12, f"{trace.label} ({trace.unit})", fill="#1d232a")
    _text(svg, PAD_L - 4, s.y(s.hi) + 4, _fmt(s.hi), "end")
    _text(svg, PAD_L - 4, s.y(s.lo), _fmt(s.lo), "end")
    _text(svg, W - PAD_R, H - 6, f"{s.t1 - s.t0:.0f} s", "end")
    for value, name in ((trace.threshold, "threshold"), (trace.low, "low")):
        if value is not None:
            _bound(svg, s, value, name)
    if trace.points:
        coords = " ".join(f"{s.x(t)},{s.y(v)}" for t, v in trace.points)
        ET.SubElement(svg, "polyline", {"points": coords, "fill": "none", "stroke": colour, "stroke-width": "2"})
        for t, v in trace.points:
            ET.SubElement(svg, "circle", {"cx": str(s.x(t)), "cy": str(s.y(v)), "r": "2.5", "fill": colour})
    else:
        _text(svg, W / 2, H / 2, "no interval gave a value", "middle")
    return svg


def plot_svg(traces: Sequence[Trace]) -> str:
    """The charts of one finding, side by side in one inline block."""
    return "".join(ET.tostring(chart(t, _COLOURS[i % len(_COLOURS)]), encoding="unicode") for i, t in enumerate(traces))
