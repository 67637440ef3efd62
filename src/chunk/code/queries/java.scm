; Symbols of a Java file (see rust.scm for the conventions). Abstract and
; interface methods without a body stay in their container's chunk.

(method_declaration name: (identifier) @name body: (block)) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

((class_declaration name: (identifier) @name) @definition.class (#set! container))
((record_declaration name: (identifier) @name) @definition.class (#set! container))
((interface_declaration name: (identifier) @name) @definition.interface (#set! container))
((annotation_type_declaration name: (identifier) @name) @definition.interface (#set! container))
((enum_declaration name: (identifier) @name) @definition.enum (#set! container))
