"""What the face reader answers (:class:`Read`), apart from how it reads (:mod:`.reader`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2

Box = tuple[tuple[float, float], tuple[float, float], float]


@dataclass(frozen=True)
class Read:
    """What the reader saw: ``face`` (1–6, ``"devil"`` or ``None``) and ``confidence`` 0–1.

    ``box``: the die's rotated rectangle in frame pixels ``((cx, cy), (w, h), angle)``;
    ``pips``: the pip centres counted (frame pixels); ``reason``: why the face is ``None``.
    """

    face: int | str | None
    confidence: float
    box: Box | None = None
    reason: str = ""
    pips: tuple[tuple[float, float], ...] = ()

    def as_json(self) -> dict[str, object]:
        return {"face": self.face, "confidence": round(self.confidence, 3)}

    def overlay(self) -> dict[str, object]:
        """Where the die was found and the pips counted (frame pixels), for a live view."""
        corners = [] if self.box is None else cv2.boxPoints(self.box).round(1).tolist()
        return {
            "face": self.face,
            "confidence": round(self.confidence, 3),
            "die": corners,
            "pips": [[round(x, 1), round(y, 1)] for x, y in self.pips],
            "reason": self.reason,
        }
