"""The lessons' engines, which draw nothing: step-through (:mod:`.step_through`), step sizes
(:mod:`.step_sizes`), kernel approximation (:mod:`.kernel_approx`), the point history
(:mod:`.point_history`) and the seed papers' rows (:mod:`.papers`). The pages compose them with
:mod:`svmcore.ui` and :mod:`svmcore.viz`."""
