"""Results for other tools: the mesh viewer's CSV in RenderDoc's format (:mod:`.mesh_csv`) and
JUnit XML for CI systems (:mod:`.junit`); ``docs/exports.md`` describes both."""
