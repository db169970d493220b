"""Games you can look at: self-contained HTML replay pages and tournament reports.

Everything here reads records and result files (never a live game) and writes one file per
page with its CSS, script, data and plots inline, so that a page opens from disk with no
network.  Every string that came from a bot or a file reaches the page escaped.
"""
