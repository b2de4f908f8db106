"""Qt-free view models: what each screen shows, as plain frozen data.

One module per screen: :mod:`~triage.views.desk` (the annotator's desk),
:mod:`~triage.views.panels` (live gain, spend and yield panels),
:mod:`~triage.views.new_project` (the new-project dialog), :mod:`~triage.views.analysis`
(advice banner, agreement and adjudication views) and :mod:`~triage.views.models` (model
choice). Widgets in ``ui/`` draw these objects and nothing else.
"""
