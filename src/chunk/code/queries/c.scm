; Symbols of a C file (see rust.scm for the conventions). Declarators nest
; (`*name(…)`, `(*name)(…)`): `@declarator` finds the name inside them.
; Prototypes are symbols too: in a header they are the whole interface.

(function_definition declarator: [(function_declarator) (pointer_declarator) (attributed_declarator)] @declarator) @definition.function

(declaration declarator: [
  (function_declarator)
  (pointer_declarator declarator: (function_declarator))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator)))
] @declarator) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(type_definition declarator: (_) @declarator) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; An `extern` variable is declared here and defined elsewhere, like a
; prototype: `(#set! declaration)` marks it so. Before the globals below, so
; it wins the node.
([(translation_unit (declaration (storage_class_specifier) @storage declarator: (_) @declarator) @definition.var)
  (preproc_ifdef (declaration (storage_class_specifier) @storage declarator: (_) @declarator) @definition.var)]
  (#eq? @storage "extern")
  (#set! declaration))

; Globals, at file level or inside conditional compilation (include guards).
([(translation_unit (declaration declarator: (_) @declarator) @definition.var)
  (preproc_ifdef (declaration declarator: (_) @declarator) @definition.var)])

; Each further declarator of `int a, *b;` is declared in the first one's
; chunk, a sibling of its name rather than a member.
([(translation_unit (declaration declarator: (_)
    declarator: (_) @declared_declarator @declared.var))
  (preproc_ifdef (declaration declarator: (_)
    declarator: (_) @declared_declarator @declared.var))])

; A struct's or union's fields (each name of `int a, *b;`) and an enum's
; values, declared in its chunk (a typedef's, when one names it).
([(struct_specifier body: (field_declaration_list
    (field_declaration declarator: (_) @declared_declarator) @declared.field))
  (union_specifier body: (field_declaration_list
    (field_declaration declarator: (_) @declared_declarator) @declared.field))
  (type_definition type: [
    (struct_specifier body: (field_declaration_list
      (field_declaration declarator: (_) @declared_declarator) @declared.field))
    (union_specifier body: (field_declaration_list
      (field_declaration declarator: (_) @declared_declarator) @declared.field))])])
([(enum_specifier body: (enumerator_list
    (enumerator name: (identifier) @declared_name) @declared.variant))
  (type_definition type: (enum_specifier body: (enumerator_list
    (enumerator name: (identifier) @declared_name) @declared.variant)))])
