; Symbols of a C++ file (see rust.scm for the conventions). Templates join
; their declaration through the `template_declaration` wrapper (languages.rs).
; A function's name is found through its `@declarator` (`*`, `&`, parentheses);
; defined outside its class (`bool Bucket::take() {…}`), its qualifier is its
; scope and `(#set! scoped method)` makes it a method, named `Bucket::take` like
; an inline one.

(field_declaration_list (function_definition declarator: [(function_declarator) (pointer_declarator) (reference_declarator) (attributed_declarator)] @declarator) @definition.method)

((function_definition declarator: [(function_declarator) (pointer_declarator) (reference_declarator) (attributed_declarator)] @declarator) @definition.function (#set! scoped method))

((namespace_definition name: (_) @name) @definition.module (#set! container))
((class_specifier name: (_) @name body: (_)) @definition.class (#set! container))
((struct_specifier name: (_) @name body: (_)) @definition.struct (#set! container))
((union_specifier name: (_) @name body: (_)) @definition.union (#set! container))
(enum_specifier name: (_) @name body: (_)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Prototypes and globals at namespace or file level, also inside a
; conditional there (an include guard).
([(translation_unit (declaration declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ] @declarator) @definition.function)
  (declaration_list (declaration declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ] @declarator) @definition.function)
  (preproc_ifdef (declaration declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ] @declarator) @definition.function)
  (preproc_if (declaration declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ] @declarator) @definition.function)])

([(translation_unit (declaration declarator: [(identifier) (init_declarator)] @declarator) @definition.var)
  (declaration_list (declaration declarator: [(identifier) (init_declarator)] @declarator) @definition.var)])

; Each further declarator of `int a, b = 2;` is declared in the first one's
; chunk, a sibling of its name rather than a member.
([(translation_unit (declaration declarator: [(identifier) (init_declarator)]
    declarator: [(identifier) (init_declarator)] @declared_declarator @declared.var))
  (declaration_list (declaration declarator: [(identifier) (init_declarator)]
    declarator: [(identifier) (init_declarator)] @declared_declarator @declared.var))])

; Base classes.
(class_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @super)) @definition.class
(struct_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @super)) @definition.struct

; Members declared in their class's chunk: method prototypes (constructors
; too), then fields, each name of `int a, *b;` (a member both patterns
; capture is a method: the earlier pattern wins), and an enum's values.
(field_declaration_list [
  (field_declaration declarator: [
    (function_declarator)
    (pointer_declarator declarator: (function_declarator))
    (reference_declarator (function_declarator))
  ] @declared_declarator)
  (declaration declarator: (function_declarator) @declared_declarator)
] @declared.method)
(field_declaration_list (field_declaration declarator: (_) @declared_declarator) @declared.field)
(enum_specifier body: (enumerator_list
  (enumerator name: (identifier) @declared_name) @declared.variant))
