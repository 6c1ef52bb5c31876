"""Looking into fitted models: the worked computation of a posterior
(:mod:`~nbayes.inspection.explain`), informative features and nomograms
(:mod:`~nbayes.inspection.nomogram`), independence diagnostics
(:mod:`~nbayes.inspection.diagnostics`), cross-validation
(:mod:`~nbayes.inspection.evaluation`) and the HTML report
(:mod:`~nbayes.inspection.report`)."""
