"""The first-contact check (`doctor`, "Test connection") and the reachability probe.

`report` holds what a check found, as data (a finding code and its arguments, never prose);
`checks` runs every check against a profile without ever sending a charge; `probe` repeats the
cheap part of it while the window runs. The words for the findings are in
`checkout_desktop.ui.doctor_text`, in the UI's language.
"""
