"""The topology picture as SVG markup, written in Python (ElementTree escapes every name a device reports). Inline in
HTML, so no namespace declaration (the page names no URL at all)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from xoff.report.topology import Node, Picture

_FILL = {"ok": "#ddf4ff", "skipped": "#eaeef2", "warning": "#fff8c5", "failing": "#ffebe9"}
_STROKE = {"ok": "#0969da", "skipped": "#8c959f", "warning": "#bf8700", "failing": "#cf222e"}
_HOST_OK = ("#f6f8fa", "#8c959f")


def _colours(node: Node) -> tuple[str, str]:
    if node.state == "ok" and node.kind == "host":
        return _HOST_OK
    return _FILL[node.state], _STROKE[node.state]


def _text(parent: ET.Element, x: float, y: float, size: int, text: str, fill: str = "#1d232a") -> None:
    attrs = {"x": str(x), "y": str(y), "font-size": str(size), "text-anchor": "middle", "fill": fill}
    ET.SubElement(parent, "text", attrs).text = text


def _node(svg: ET.Element, n: Node) -> None:
    group = ET.SubElement(svg, "g", {"class": f"node {n.state}"})
    ET.SubElement(group, "title").text = n.title
    fill, stroke = _colours(n)
    box = {"x": str(n.x), "y": str(n.y), "width": str(n.w), "height": str(n.h), "rx": "5", "fill": fill}
    box |= {"stroke": stroke, "stroke-width": "2" if n.state in ("warning", "failing") else "1"}
    if n.state == "skipped":
        box["stroke-dasharray"] = "4 3"
    ET.SubElement(group, "rect", box)
    if n.sub:
        _text(group, n.cx, n.y + 16, 11, n.label)
        _text(group, n.cx, n.y + 30, 10, n.sub, "#57606a")
    else:
        _text(group, n.cx, n.y + 23, 11, n.label)


def svg(picture: Picture) -> str:
    root = ET.Element(
        "svg",
        {
            "width": str(picture.width),
            "height": str(picture.height),
            "viewBox": f"0 0 {picture.width} {picture.height}",
            "role": "img",
            "aria-label": "fabric topology",
        },
    )
    for e in picture.edges:
        attrs = {"x1": str(e.x1), "y1": str(e.y1), "x2": str(e.x2), "y2": str(e.y2)}
        attrs |= {"stroke": "#cf222e" if e.failing else "#8c959f", "stroke-opacity": "1" if e.failing else "0.6"}
        attrs["stroke-width"] = "3" if e.failing else ("2" if e.count > 1 else "1")
        ET.SubElement(ET.SubElement(root, "line", attrs), "title").text = e.title
    for n in picture.nodes:
        _node(root, n)
    return ET.tostring(root, encoding="unicode")
