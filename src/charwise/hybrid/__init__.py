"""Hybrid models: character vectors inside an unchanged HF model, through ``inputs_embeds``.

The names below are loaded on first use (PEP 562): a module that needs one part of this package
(the speller's context model reads :mod:`charwise.hybrid.packing`) does not load the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from charwise.lazy import lazy_names

if TYPE_CHECKING:
    from charwise.hybrid.adapter import ModelAdapter
    from charwise.hybrid.model import HybridInputs, HybridModel, HybridOutput
    from charwise.hybrid.policies import Policy, Repair, RepairPolicy, get_policy

#: public name -> the module it is loaded from on first use
_LAZY = {
    "ModelAdapter": "charwise.hybrid.adapter",
    **dict.fromkeys(("HybridInputs", "HybridModel", "HybridOutput"), "charwise.hybrid.model"),
    **dict.fromkeys(("Policy", "Repair", "RepairPolicy", "get_policy"), "charwise.hybrid.policies"),
}

__all__ = ["HybridInputs", "HybridModel", "HybridOutput", "ModelAdapter", "Policy", "Repair", "RepairPolicy",
           "get_policy"]

__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)
