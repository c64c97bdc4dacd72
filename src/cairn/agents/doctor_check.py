"""One line of `cairn doctor`: a named check, ok / warn / fail, its detail and data for --json.

Its own module so each family of checks (doctor.py, doctor_wiring.py) builds it without
importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    data: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            **({"data": self.data} if self.data else {}),
        }
