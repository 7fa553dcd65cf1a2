
iroot"_tf_keras_sequential*E{"name": "sequential", "class_name": "Sequential", "trainable": true}2
]root.layer-0"_tf_keras_layer*4{"name": "dense", "class_name": "Dense", "units": 4}2