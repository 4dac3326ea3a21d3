// `import OSLog`: the unified logging of `os` (see its `Logger`).
@_exported import os
