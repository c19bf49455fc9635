"""System identification of planar nR arms: base parameters, excitation, estimators, cross-engine diagnosis.

Level 5 (imports models, analytic, engines and the driving loop; not comparison or checking).
"""
from crossdyn.identification.data import DataError, JointData, NoiseModel
from crossdyn.identification.identify import compare_section, diagnose_engines, identify
from crossdyn.identification.parameters import closed_form_base, full_parameters, full_regressor, numerical_base

__all__ = ["DataError", "JointData", "NoiseModel", "closed_form_base", "compare_section", "diagnose_engines",
           "full_parameters", "full_regressor", "identify", "numerical_base"]
