"""`rigedit report`: the motion quality of a take or a library (rigedit/core/quality) as an
HTML page that opens offline and as JSON, and two takes or libraries side by side.

    measure.py  one file's measures (the batch's job function), and running many through the
                batch runners (rigedit/batch: local processes or a Dask cluster)
    pairs.py    --compare: which clip of A goes with which of B, and the change per measure
    plots.py    the plotly figures (histograms, a clip's measures over time, comparisons)
    page.py     the HTML page: the library table (sortable, worst first), the plots, a section per clip
"""
