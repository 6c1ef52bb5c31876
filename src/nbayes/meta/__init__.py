"""Meta-estimators around any nbayes model: semi-supervised EM
(:mod:`~nbayes.meta.semi_supervised`) and calibration (:mod:`~nbayes.meta.calibration`)."""
