"""The conversion rules, in the order the pipeline runs them.

Statement- and module-level rules come first, so they see torch code as the user wrote it;
the table-driven API rule runs last among the rewriters.
"""
from .api_calls import ApiCallRule
from .autograd import AutogradGradRule
from .checkpoint import CheckpointRule
from .common import BlockEditRule
from .custom_function import CustomFunctionRule
from .data import DataLoaderRule
from .device import DeviceRule
from .grad_flags import GradFlagRule
from .launch import LaunchRule
from .layer_args import LayerArgsRule
from .modules import ModuleRule
from .name_strings import NameStringRule
from .no_grad import NoGradConstructionRule
from .pickle_load import PickleRule
from .seeds import SeedRule
from .train_step import TrainStepRule
from .views import ViewWriteRule

RULES = [
    TrainStepRule,
    ModuleRule,
    LayerArgsRule,
    CustomFunctionRule,
    AutogradGradRule,
    GradFlagRule,
    DeviceRule,
    SeedRule,
    CheckpointRule,
    PickleRule,
    DataLoaderRule,
    NoGradConstructionRule,
    ViewWriteRule,
    BlockEditRule,
    LaunchRule,
    NameStringRule,
    ApiCallRule,
]

__all__ = ["RULES"]
