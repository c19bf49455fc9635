"""System identification of planar nR arms: base parameters, excitation, estimators, cross-engine diagnosis.

Level 8 (imports models, analytic, engines and the driving loop; not comparison or checking).
"""
from crossdyn.identification.data import DataError, JointData, NoiseModel
from crossdyn.identification.diagnosis import EngineDiagnosis, compare_section, diagnose_engines
from crossdyn.identification.excitation import ExcitationOptions
from crossdyn.identification.identify import IdentifyOptions, identify
from crossdyn.identification.parameters import closed_form_base, full_parameters, full_regressor, numerical_base
from crossdyn.identification.result import IdentificationResult

__all__ = ["DataError", "EngineDiagnosis", "ExcitationOptions", "IdentificationResult", "IdentifyOptions",
           "JointData", "NoiseModel", "closed_form_base", "compare_section", "diagnose_engines", "full_parameters",
           "full_regressor", "identify", "numerical_base"]
