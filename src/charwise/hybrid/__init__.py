"""Hybrid models: character vectors inside an unchanged HF model, through ``inputs_embeds``."""

from charwise.hybrid.adapter import ModelAdapter
from charwise.hybrid.model import HybridInputs, HybridModel, HybridOutput
from charwise.hybrid.policies import Policy, Repair, RepairPolicy, get_policy

__all__ = ["HybridInputs", "HybridModel", "HybridOutput", "ModelAdapter", "Policy", "Repair", "RepairPolicy",
           "get_policy"]
