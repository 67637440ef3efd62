; Symbols of a C file (see rust.scm for the conventions). Declarators nest
; (`*name(…)`), so the name is looked for a few levels down. Prototypes are
; symbols too: in a header they are the whole interface.

(function_definition declarator: [
  (function_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
]) @definition.function

(declaration declarator: [
  (function_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
]) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(type_definition declarator: [
  (type_identifier) @name
  (pointer_declarator declarator: (type_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
]) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; An `extern` variable is declared here and defined elsewhere, like a
; prototype: `(#set! declaration)` marks it so. Before the globals below, so
; it wins the node.
([(translation_unit (declaration (storage_class_specifier) @storage declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
  ]) @definition.var)
  (preproc_ifdef (declaration (storage_class_specifier) @storage declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
  ]) @definition.var)]
  (#eq? @storage "extern")
  (#set! declaration))

; Globals, at file level or inside conditional compilation (include guards).
([(translation_unit (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.var)
  (preproc_ifdef (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.var)])
