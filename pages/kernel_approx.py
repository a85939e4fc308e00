"""Kernel approximation: what Nyström and random Fourier features cost, on the page's data.

A composition of the kit (:mod:`svmcore.ui`, instance ``"ka"``): the data panel (toy, real or
uploaded; at most 2,000 training rows), the kernel and approximation widgets, then the exact
kernel matrix beside its Nyström (s landmarks) and random-Fourier (d features) approximations,
the relative error and ASSET's test error against s and d over several seeds (the ASSET paper's
Fig. 1 at small scale, scikit-learn's maps as the reference), the spectrum of the sampled block
with the threshold ε_d, and the time of each map. The numbers come from
:mod:`svmcore.lessons.kernel_approx`, the figures from :mod:`svmcore.viz.kernel_approx`.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


def main() -> None:
    ka = ui.instance("ka")
    ka.setdefault("toy", "spirals")
    ka.setdefault("n", 600)
    with st.sidebar:
        st.header("Data")
        data = ui.data_panel(ka)
        opts = ui.kernel_approx_panel(ka, data)

    st.title("Kernel approximation")
    st.caption("A kernel SVM needs the n × n matrix K = [exp(−γ‖x_i − x_j‖²)]. ASSET replaces it "
               "by K̃ = VVᵀ with V of width d ≪ n: Nyström builds V from s random training rows "
               "(the landmarks, eq. 6–7), random Fourier features from d random cosines "
               "(eq. 8). How close is K̃ to K, what does it cost, and how much test error does "
               "it give away?")
    ui.kernel_approx_view(ka, data, opts)


ui.guarded(main)
